/**
 * The fuzz ring's forms whose field names are the attack (issue 24, item 1): a name sent as a text field and
 * as a list item (`x`, `x[]`), repeated, bracketed, named like Object.prototype's members (`__proto__[]`,
 * `constructor`), or used for a file part and a text field. Built from the route's own form schema, so every
 * multipart route gets them with its own field names. Hooked into the ring by formBodies' caller.
 */
import fc from "fast-check";
import type * as z from "zod";
import { propertiesOf, toJsonSchema } from "./schema-arbitrary.js";

const PROTOTYPE_NAMES = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "isPrototypeOf"];
const SUFFIXES = ["", "", "[]", "[]", "[0]", "[__proto__]", "[constructor]"];

interface Part {
  name: string;
  value: string;
  filename?: string;
}

const BOUNDARY = "namesboundary";

function form(parts: Part[]): Buffer {
  const chunks = parts.map((p) =>
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename === undefined ? "" : `; filename="${p.filename}"`}\r\n${p.filename === undefined ? "" : "Content-Type: application/octet-stream\r\n"}\r\n${p.value}\r\n`),
  );
  return Buffer.concat([...chunks, Buffer.from(`--${BOUNDARY}--\r\n`)]);
}

/** Forms for a multipart route whose names repeat, carry list suffixes, or name prototype members. */
export function formNameBodies(schema: z.ZodType | undefined): fc.Arbitrary<{ variant: string; contentType: string; text: Buffer }> {
  const json = schema ? toJsonSchema(schema) : undefined;
  const own = json ? Object.keys(propertiesOf(json, json)) : [];
  const name = fc.oneof(fc.constantFrom(...(own.length ? own : ["file"])), fc.constantFrom(...PROTOTYPE_NAMES));
  const value = fc.oneof(fc.constantFrom("x", "", "fine-tune", "batch", "1", "en"), fc.string({ maxLength: 12 }).filter((s) => !/[\r\n-]/.test(s)));
  const field = fc.tuple(name, fc.constantFrom(...SUFFIXES), value, fc.boolean()).map(([n, suffix, v, isFile]): Part => (isFile && suffix === "" ? { name: n, value: v, filename: "a.jsonl" } : { name: `${n}${suffix}`, value: v }));
  // The same name twice in two of its forms is the case that killed the process: always one such pair.
  const pair = fc.tuple(name, fc.constantFrom(...SUFFIXES), fc.constantFrom(...SUFFIXES), value).map(([n, a, b, v]): Part[] => [
    { name: `${n}${a}`, value: v },
    { name: `${n}${b}`, value: v },
  ]);
  const withFile = fc.option(fc.constant<Part>({ name: "file", value: '{"messages":[]}\n', filename: "data.jsonl" }), { nil: undefined });
  return fc.tuple(withFile, pair, fc.array(field, { maxLength: 4 }), fc.boolean()).map(([file, twice, more, fileFirst]) => {
    const fields = [...twice, ...more];
    const parts = file ? (fileFirst ? [file, ...fields] : [...fields, file]) : fields;
    return { variant: `form names ${parts.map((p) => (p.filename === undefined ? p.name : `${p.name}(file)`)).join(",")}`, contentType: `multipart/form-data; boundary=${BOUNDARY}`, text: form(parts) };
  });
}
