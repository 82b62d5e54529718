import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Unprocessable } from "../../../shared/domain/errors.js";
import { parseForm, streamForm } from "../../../shared/http/multipart.js";

const BOUNDARY = "b0undary";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A form body from its parts in order (text fields, or a file part when a filename is given). */
function aForm(parts: { name: string; value: string; filename?: string }[]): string {
  return (
    parts
      .map((p) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ""}\r\n\r\n${p.value}\r\n`)
      .join("") + `--${BOUNDARY}--\r\n`
  );
}

const parse = (parts: { name: string; value: string; filename?: string }[], lists: string[] = []) => parseForm(aForm(parts), "utf8", CONTENT_TYPE, { files: 1 }, lists);

/** Busboy calls its listeners outside the parse's promise: anything they throw would be the process's uncaught exception. */
const uncaught: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);
beforeEach(() => {
  uncaught.length = 0;
  process.on("uncaughtException", record);
});
afterEach(async () => {
  await new Promise((r) => setTimeout(r, 20));
  process.off("uncaughtException", record);
  expect(uncaught).toEqual([]);
});

describe("parseForm", () => {
  it("refuses a name sent as a text field and then as a list item with a 422 naming it", async () => {
    const error = await parse([{ name: "x", value: "1" }, { name: "x[]", value: "2" }]).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Unprocessable);
    expect((error as Unprocessable).detail).toEqual([{ loc: ["body", "x"], msg: 'The form field "x" is sent both as a text and as a list', type: "value_error" }]);
  });

  it("refuses a list item followed by the same name as a text field", async () => {
    await expect(parse([{ name: "x[]", value: "1" }, { name: "x", value: "2" }])).rejects.toBeInstanceOf(Unprocessable);
  });

  it("refuses a file part and a text field of the same name", async () => {
    await expect(parse([{ name: "file", value: "data", filename: "a.txt" }, { name: "file", value: "text" }])).rejects.toBeInstanceOf(Unprocessable);
  });

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])("keeps %s (and its list form) as an ordinary field, touching no prototype", async (name) => {
    const text = await parse([{ name, value: "v" }]);
    const list = await parse([{ name: `${name}[]`, value: "a" }, { name: `${name}[]`, value: "b" }]);

    expect(Object.getPrototypeOf(text)).toBeNull();
    expect(Object.getOwnPropertyDescriptor(text, name)?.value).toBe("v");
    expect(Object.getOwnPropertyDescriptor(list, name)?.value).toEqual(["a", "b"]);
    expect(({} as Record<string, unknown>).v).toBeUndefined();
  });

  it("collects list items and the route's listed names into arrays, and keeps a repeated text field's last value", async () => {
    const form = await parse(
      [
        { name: "tags[]", value: "a" },
        { name: "tags[]", value: "b" },
        { name: "context_bias", value: "x" },
        { name: "context_bias[]", value: "y" },
        { name: "model", value: "m1" },
        { name: "model", value: "m2" },
      ],
      ["context_bias"],
    );

    expect({ ...form }).toEqual({ tags: ["a", "b"], context_bias: ["x", "y"], model: "m2" });
  });

  it("reads a file part", async () => {
    const form = await parse([{ name: "file", value: "hello", filename: "a.txt" }, { name: "purpose", value: "batch" }]);

    expect((form.file as { content: Buffer }).content.toString()).toBe("hello");
    expect(form.purpose).toBe("batch");
  });
});

describe("streamForm", () => {
  const stream = (parts: { name: string; value: string; filename?: string }[]) =>
    streamForm(
      Readable.from([Buffer.from(aForm(parts))]),
      CONTENT_TYPE,
      async (part) => {
        for await (const _ of part.content);
        return part.filename;
      },
      async () => undefined,
    );

  it("refuses a name sent as a text field and as a list item with a 422", async () => {
    await expect(stream([{ name: "purpose", value: "batch" }, { name: "purpose[]", value: "x" }])).rejects.toBeInstanceOf(Unprocessable);
  });

  it.each(["__proto__", "constructor"])("keeps a field named %s (and its list form) as data", async (name) => {
    const { fields } = await stream([{ name: `${name}[]`, value: "a" }, { name: "file", value: "x", filename: "a.txt" }]);

    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect(Object.getOwnPropertyDescriptor(fields, name)?.value).toEqual(["a"]);
  });

  it("starts no file after the form failed: a clash before the file part leaves nothing to undo", async () => {
    const started: string[] = [];
    const form = streamForm(
      Readable.from([Buffer.from(aForm([{ name: "x[]", value: "a" }, { name: "x", value: "b" }, { name: "file", value: "content", filename: "a.txt" }]))]),
      CONTENT_TYPE,
      async (part) => {
        started.push(part.filename);
        for await (const _ of part.content);
        return part.filename;
      },
      async () => undefined,
    );

    await expect(form).rejects.toBeInstanceOf(Unprocessable);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toStrictEqual([]);
  });

  it("refuses a text field named as the file part", async () => {
    await expect(stream([{ name: "file", value: "x", filename: "a.txt" }, { name: "file", value: "text" }])).rejects.toBeInstanceOf(Unprocessable);
  });
});
