/**
 * Server-sent events, reading side: turns a byte stream into the `data` payloads of its events, each as soon
 * as its terminating blank line arrives. Lines may end in `\n`, `\r\n` or `\r`; comment lines (`:`) and the
 * `event`, `id` and `retry` fields are skipped; several `data` lines of one event are joined with `\n`.
 * Unlike a browser, a last event the stream ends without a blank line is still delivered.
 */
export async function* sseData(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];

  /** Feeds one line; returns the payload when the line ends an event. */
  const line = (text: string): string | undefined => {
    if (text === "") {
      if (data.length === 0) return undefined;
      const payload = data.join("\n");
      data = [];
      return payload;
    }
    if (text.startsWith(":")) return undefined;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    if (field !== "data") return undefined;
    const value = colon < 0 ? "" : text.slice(colon + 1);
    data.push(value.startsWith(" ") ? value.slice(1) : value);
    return undefined;
  };

  for await (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const end = buffer.search(/[\r\n]/);
      if (end < 0) break;
      // A `\r` at the very end may be the first half of a `\r\n` still in transit.
      if (buffer[end] === "\r" && end === buffer.length - 1) break;
      const width = buffer[end] === "\r" && buffer[end + 1] === "\n" ? 2 : 1;
      const payload = line(buffer.slice(0, end));
      buffer = buffer.slice(end + width);
      if (payload !== undefined) yield payload;
    }
  }
  buffer += decoder.decode();
  for (const rest of buffer.split(/\r\n|\r|\n/)) {
    const payload = line(rest);
    if (payload !== undefined) yield payload;
  }
  const last = line("");
  if (last !== undefined) yield last;
}
