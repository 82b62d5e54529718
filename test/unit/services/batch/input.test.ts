import { Readable } from "node:stream";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  BatchInputError,
  countJobRequests,
  CustomIds,
  parseRequestLines,
  readJobRequests,
  readRequestLines,
  splitLines,
  type RequestLine,
  type RequestSource,
} from "../../../../shared/services/batch/input.js";
import { NotFound } from "../../../../shared/domain/errors.js";

const s3 = mockClient(S3Client);

beforeAll(() => {
  process.env.BUCKET_FILES ??= "platform-files";
});
beforeEach(() => {
  s3.reset();
});

const FILE = { fileId: "0b6cc5a4-52c3-4b5e-9d2e-4f6b9c0a1d11" };
const OTHER = { fileId: "9a1e2b3c-4d5e-4f60-8a7b-1c2d3e4f5a6b" };

/** The text cut into chunks at the given byte offsets. */
async function* chunked(text: string | Buffer, cuts: number[] = []): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, "utf8");
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield new Uint8Array(bytes.subarray(start, cut));
    start = cut;
  }
}

async function all<T>(lines: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

const request = (customId: string, body: Record<string, unknown> = { messages: [{ role: "user", content: customId }] }) =>
  JSON.stringify({ custom_id: customId, body });

async function refusal(lines: AsyncIterable<unknown>): Promise<BatchInputError> {
  try {
    await all(lines);
  } catch (error) {
    expect(error).toBeInstanceOf(BatchInputError);
    return error as BatchInputError;
  }
  throw new Error("expected the lines to be refused");
}

describe("splitLines", () => {
  it("numbers lines from 1 and drops the newline", async () => {
    const lines = await all(splitLines(chunked("a\nb\nc\n"), FILE));
    expect(lines).toStrictEqual([
      { text: "a", line: 1 },
      { text: "b", line: 2 },
      { text: "c", line: 3 },
    ]);
  });

  it("keeps a last line that has no newline", async () => {
    const lines = await all(splitLines(chunked("a\nb"), FILE));
    expect(lines.map((l) => l.text)).toStrictEqual(["a", "b"]);
  });

  it("joins a line that chunk boundaries cut into several pieces", async () => {
    const text = "first line\nsecond line\nthird\n";
    const lines = await all(splitLines(chunked(text, [3, 7, 11, 12, 20]), FILE));
    expect(lines.map((l) => l.text)).toStrictEqual(["first line", "second line", "third"]);
  });

  it("splits lines whatever the chunk size, one byte at a time included", async () => {
    const text = "αβγ\n{\"x\":\"é€😀\"}\r\n\nlast";
    const cuts = Array.from({ length: Buffer.byteLength(text) - 1 }, (_, i) => i + 1);
    const lines = await all(splitLines(chunked(text, cuts), FILE));
    expect(lines.map((l) => l.text)).toStrictEqual(["αβγ", '{"x":"é€😀"}', "", "last"]);
  });

  it("drops the CR of CRLF line ends, also when the CR ends a chunk", async () => {
    const lines = await all(splitLines(chunked("a\r\nb\r\n", [2]), FILE));
    expect(lines.map((l) => l.text)).toStrictEqual(["a", "b"]);
  });

  it("drops a UTF-8 byte order mark at the start", async () => {
    const lines = await all(splitLines(chunked("\uFEFFa\nb\n"), FILE));
    expect(lines.map((l) => l.text)).toStrictEqual(["a", "b"]);
  });

  it("refuses bytes that are not UTF-8, naming the line", async () => {
    const error = await refusal(splitLines(chunked(Buffer.concat([Buffer.from("ok\n"), Buffer.from([0xff, 0xfe]), Buffer.from("\n")])), FILE));
    expect(error.message).toBe(`Line 2 of file '${FILE.fileId}' is not valid UTF-8`);
  });

  it("refuses a line longer than the limit without waiting for its end", async () => {
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Buffer.from("short\n");
      for (;;) yield Buffer.alloc(1024, 0x61);
    }
    const error = await refusal(splitLines(endless(), FILE, 10_000));
    expect(error.message).toContain(`Line 2 of file '${FILE.fileId}' is longer than 10000 bytes`);
  });
});

describe("parseRequestLines", () => {
  it("yields custom_id, body and line number of each request", async () => {
    const lines = await all(parseRequestLines(chunked(`${request("a", { x: 1 })}\n${request("b", { y: 2 })}\n`), FILE));
    expect(lines).toStrictEqual<RequestLine[]>([
      { custom_id: "a", body: { x: 1 }, line: 1 },
      { custom_id: "b", body: { y: 2 }, line: 2 },
    ]);
  });

  it("skips blank and whitespace-only lines but keeps counting them", async () => {
    const lines = await all(parseRequestLines(chunked(`\n${request("a")}\n  \r\n\t\n${request("b")}\n\n`), FILE));
    expect(lines.map((l) => [l.custom_id, l.line])).toStrictEqual([
      ["a", 2],
      ["b", 5],
    ]);
  });

  it("ignores fields other than custom_id and body", async () => {
    const text = JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { x: 1 } });
    const [line] = await all(parseRequestLines(chunked(text), FILE));
    expect(line).toStrictEqual({ custom_id: "a", body: { x: 1 }, line: 1 });
  });

  it("refuses a line that is not JSON, naming the file and the line number", async () => {
    const error = await refusal(parseRequestLines(chunked(`${request("a")}\n\n{"custom_id": "b", "body": \n${request("c")}\n`), FILE));
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_batch_input");
    expect(error.param).toBe("input_files");
    expect(error.message).toMatch(new RegExp(`^Line 3 of file '${FILE.fileId}' is not valid JSON`));
  });

  it("stops at the first bad line", async () => {
    const seen: string[] = [];
    const lines = parseRequestLines(chunked(`${request("a")}\nnope\n${request("c")}\nalso bad\n`), FILE);
    const error = await refusal(
      (async function* () {
        for await (const line of lines) {
          seen.push(line.custom_id);
          yield line;
        }
      })(),
    );
    expect(seen).toStrictEqual(["a"]);
    expect(error.message).toMatch(/^Line 2 /);
  });

  it.each([
    ["an array", "[1, 2]", "is not a JSON object"],
    ["a string", '"text"', "is not a JSON object"],
    ["null", "null", "is not a JSON object"],
    ["no custom_id", JSON.stringify({ body: {} }), "has no custom_id"],
    ["an empty custom_id", JSON.stringify({ custom_id: "", body: {} }), "has no custom_id"],
    ["a numeric custom_id", JSON.stringify({ custom_id: 7, body: {} }), "has no custom_id"],
    ["a custom_id of 513 characters", JSON.stringify({ custom_id: "x".repeat(513), body: {} }), "has a custom_id longer than 512"],
    ["no body", JSON.stringify({ custom_id: "a" }), "has no body"],
    ["a string body", JSON.stringify({ custom_id: "a", body: "hello" }), "has no body"],
    ["an array body", JSON.stringify({ custom_id: "a", body: [] }), "has no body"],
    ["a null body", JSON.stringify({ custom_id: "a", body: null }), "has no body"],
  ])("refuses a line with %s", async (_, line, problem) => {
    const error = await refusal(parseRequestLines(chunked(`${request("ok")}\n${line}\n`), FILE));
    expect(error.message).toContain(`Line 2 of file '${FILE.fileId}' ${problem}`);
  });

  it("names inline requests by their index", async () => {
    const error = await refusal(parseRequestLines(chunked(`${request("a")}\n${request("b")}\n{}\n`), { fileId: null }));
    expect(error.param).toBe("requests");
    expect(error.message).toMatch(/^requests\[2\] has no custom_id/);
  });
});

describe("CustomIds", () => {
  it("accepts distinct ids", () => {
    const ids = new CustomIds();
    ids.add("a", FILE, 1);
    ids.add("b", FILE, 2);
    ids.add("A", OTHER, 1);
    expect(ids.size).toBe(3);
  });

  it("refuses a repeat, naming both places", () => {
    const ids = new CustomIds();
    ids.add("a", FILE, 1);
    ids.add("b", FILE, 4);
    expect(() => ids.add("b", OTHER, 9)).toThrow(
      `Line 9 of file '${OTHER.fileId}' repeats custom_id 'b' (first used: Line 4 of file '${FILE.fileId}'); custom_ids must be unique within a job`,
    );
  });

  it("tells long ids apart by their whole text and still refuses a repeat of one", () => {
    const ids = new CustomIds();
    const long = "x".repeat(500);
    ids.add(`${long}1`, FILE, 1);
    ids.add(`${long}2`, FILE, 2);
    ids.add(long.slice(0, 32), FILE, 3);
    expect(() => ids.add(`${long}2`, FILE, 4)).toThrow(`Line 4 of file '${FILE.fileId}' repeats custom_id '${long}2' (first used: Line 2 of file '${FILE.fileId}')`);
    expect(ids.size).toBe(3);
  });

  it("refuses a repeat among inline requests by index", () => {
    const ids = new CustomIds();
    ids.add("x", { fileId: null }, 1);
    expect(() => ids.add("x", { fileId: null }, 3)).toThrow("requests[2] repeats custom_id 'x' (first used: requests[0])");
  });
});

describe("reading from S3", () => {
  const body = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c))) as never;
  const source = (fileId: string): RequestSource => ({ key: `workspaces/ws/files/${fileId}`, fileId });

  it("streams the object's lines from the files bucket", async () => {
    const text = `${request("a")}\n${request("b")}\n`;
    s3.on(GetObjectCommand).callsFake(() => ({ Body: body(text.slice(0, 30), text.slice(30)) }));

    const lines = await all(readRequestLines(source(FILE.fileId)));

    expect(lines.map((l) => l.custom_id)).toStrictEqual(["a", "b"]);
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input).toStrictEqual({ Bucket: "platform-files", Key: `workspaces/ws/files/${FILE.fileId}` });
  });

  it("answers a File whose object is gone as not found", async () => {
    s3.on(GetObjectCommand).rejects(Object.assign(new Error("The specified key does not exist."), { name: "NoSuchKey" }));

    await expect(all(readRequestLines(source(FILE.fileId)))).rejects.toBeInstanceOf(NotFound);
  });

  it("counts the requests of several sources in order", async () => {
    s3.on(GetObjectCommand, { Key: source(FILE.fileId).key }).callsFake(() => ({ Body: body(`${request("a")}\n${request("b")}\n`) }));
    s3.on(GetObjectCommand, { Key: source(OTHER.fileId).key }).callsFake(() => ({ Body: body(`${request("c")}\n`) }));

    const lines = await all(readJobRequests([source(FILE.fileId), source(OTHER.fileId)]));

    expect(lines.map((l) => [l.custom_id, l.source.fileId, l.line])).toStrictEqual([
      ["a", FILE.fileId, 1],
      ["b", FILE.fileId, 2],
      ["c", OTHER.fileId, 1],
    ]);
    expect(await countJobRequests([source(FILE.fileId), source(OTHER.fileId)])).toBe(3);
  });

  it("refuses a custom_id that repeats one of an earlier file", async () => {
    s3.on(GetObjectCommand, { Key: source(FILE.fileId).key }).callsFake(() => ({ Body: body(`${request("a")}\n${request("b")}\n`) }));
    s3.on(GetObjectCommand, { Key: source(OTHER.fileId).key }).callsFake(() => ({ Body: body(`${request("c")}\n\n${request("a")}\n`) }));

    const error = await countJobRequests([source(FILE.fileId), source(OTHER.fileId)]).catch((e: unknown) => e as BatchInputError);

    expect(error).toBeInstanceOf(BatchInputError);
    expect((error as BatchInputError).message).toContain(`Line 3 of file '${OTHER.fileId}' repeats custom_id 'a' (first used: Line 1 of file '${FILE.fileId}')`);
  });
});
