/**
 * The streamed format judgement (shared/domain/libraries/text/streamed-format.ts) answers what `documentFormat` answers
 * for the same bytes whole, whatever the chunking, reading the bytes back only for a ZIP past its head.
 */
import { randomBytes } from "node:crypto";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { documentFormat } from "../../../../shared/domain/libraries/text/formats.js";
import { characterBoundary, HEAD_BYTES, StreamedFormat } from "../../../../shared/domain/libraries/text/streamed-format.js";
import { aDocx } from "../../../support/documents.js";

/** The streamed answer for `bytes` cut into `chunk`-byte pieces, and whether the whole bytes were asked for. */
async function streamed(bytes: Buffer, filename: string, chunk = 7919) {
  const format = new StreamedFormat();
  for (let at = 0; at < bytes.length; at += chunk) format.push(bytes.subarray(at, at + chunk));
  let readBack = false;
  const facts = await format.result(filename, async () => {
    readBack = true;
    return bytes;
  });
  return { facts, readBack };
}

const big = (text: string) => Buffer.from(text.repeat(Math.ceil((3 * HEAD_BYTES) / Buffer.byteLength(text))));

describe("StreamedFormat", () => {
  const cases: [string, Buffer, string][] = [
    ["small text", Buffer.from("Plain notes."), "notes.txt"],
    ["text past the head, with characters cut across chunks", big("Café € naïve 𝄞 — notes.\n"), "notes.txt"],
    ["markdown by name", big("# Title\n\nSome *text*.\n"), "readme.md"],
    ["HTML by content", Buffer.concat([Buffer.from("<!doctype html><html><body>"), big("<p>Hello</p>")]), "page"],
    ["text with a NUL far past the head", Buffer.concat([big("notes "), Buffer.from([0]), Buffer.from("more")]), "notes.txt"],
    ["text whose last byte is not UTF-8", Buffer.concat([big("notes "), Buffer.from([0xff])]), "notes.txt"],
    ["text ending inside a character", Buffer.concat([big("notes "), Buffer.from([0xe2, 0x82])]), "notes.txt"],
    ["a PDF header after junk", Buffer.concat([Buffer.from("junk\n%PDF-1.7\n"), randomBytes(3 * HEAD_BYTES)]), "scan.pdf"],
    ["a PNG", Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3 * HEAD_BYTES)]), "scan.png"],
    ["binary", randomBytes(3 * HEAD_BYTES), "blob.bin"],
  ];
  for (const [name, bytes, filename] of cases) {
    it(`judges ${name} as the whole bytes are judged, without reading them back`, async () => {
      for (const chunk of [1, 3, 7919, 64 * 1024, bytes.length]) {
        const { facts, readBack } = await streamed(bytes, filename, chunk);
        expect(facts, `${chunk}-byte chunks`).toEqual(documentFormat(bytes, filename));
        expect(readBack).toBe(false);
      }
    });
  }

  it("reads back a ZIP past its head to find a DOCX's entries, and refuses a ZIP that is no Office document", async () => {
    const docx = aDocx([randomBytes(3 * HEAD_BYTES).toString("hex")]);
    expect(docx.length).toBeGreaterThan(HEAD_BYTES);
    expect(await streamed(docx, "big.docx")).toEqual({ facts: documentFormat(docx, "big.docx"), readBack: true });
    expect((await streamed(docx, "big.docx")).facts?.format).toBe("docx");

    const zip = Buffer.from(zipSync({ "data.bin": randomBytes(3 * HEAD_BYTES) }, { level: 0 }));
    expect(await streamed(zip, "archive.zip")).toEqual({ facts: undefined, readBack: true });
  });

  it("cuts a buffer before a character its end splits", () => {
    const euro = Buffer.from("a€");
    expect(characterBoundary(euro)).toBe(4);
    expect(characterBoundary(euro.subarray(0, 3))).toBe(1);
    expect(characterBoundary(euro.subarray(0, 2))).toBe(1);
    expect(characterBoundary(Buffer.from("abc"))).toBe(3);
  });
});
