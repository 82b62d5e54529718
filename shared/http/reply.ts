/**
 * What a handler returns when the answer is not a plain JSON 200: a redirect, another status, raw bytes.
 * Plain values are JSON 200s shaped by the route's response schema.
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: string | Buffer | AsyncIterable<string> | null,
    readonly headers: Record<string, string> = {},
  ) {}

  /** Server-sent events written as they are produced; only on routes declared `streaming`. */
  static events(frames: AsyncIterable<string>, headers: Record<string, string> = {}): Reply {
    return new Reply(200, frames, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
  }

  static json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
    return new Reply(status, JSON.stringify(value), { "content-type": "application/json", ...headers });
  }

  static redirect(location: string): Reply {
    return new Reply(302, null, { location, "cache-control": "no-store" });
  }

  static empty(status = 204): Reply {
    return new Reply(status, null);
  }
}
