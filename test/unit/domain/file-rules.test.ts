import { describe, expect, it } from "vitest";
import { ApiError } from "../../../shared/domain/errors.js";
import {
  JsonlSniffer,
  looksLikeJsonl,
  MAX_JSONL_LINE_BYTES,
  checkUpload,
  countLines,
  expiresAtFor,
  isExpired,
  LineCounter,
  mimetypeFor,
  objectKeyFor,
  sampleTypeFor,
  toFileOut,
  visibleTo,
} from "../../../shared/domain/file-rules.js";
import { MAX_FILE_BYTES } from "../../../shared/schemas/file.js";
import { aCaller, aFile, thrownBy } from "../../support/builders.js";

const thrown = (fn: () => unknown): ApiError => thrownBy(fn, ApiError);

describe("mimetypeFor", () => {
  it("keeps a specific declared type", () => {
    expect(mimetypeFor("scan.jsonl", "application/pdf")).toBe("application/pdf");
  });

  it("lowercases the declared type and drops its parameters", () => {
    expect(mimetypeFor("notes.txt", "Text/Plain; charset=UTF-8")).toBe("text/plain");
  });

  it.each(["application/octet-stream", "binary/octet-stream", "", null, undefined])("infers the type from the extension when the declared type is %j", (declared) => {
    expect(mimetypeFor("train.jsonl", declared)).toBe("application/jsonl");
  });

  it("reads the extension case-insensitively", () => {
    expect(mimetypeFor("SCAN.PDF", "application/octet-stream")).toBe("application/pdf");
  });

  it("keeps a generic declared type when the extension is unknown", () => {
    expect(mimetypeFor("blob.bin", "application/octet-stream")).toBe("application/octet-stream");
  });

  it("answers null when nothing is declared and the extension is unknown", () => {
    expect(mimetypeFor("README", undefined)).toBeNull();
  });
});

describe("checkUpload", () => {
  it("accepts a JSONL file for fine-tuning", () => {
    expect(() => checkUpload("train.jsonl", 100, "fine-tune")).not.toThrow();
  });

  it("accepts a file of exactly 512 MB", () => {
    expect(() => checkUpload("train.jsonl", MAX_FILE_BYTES, "fine-tune")).not.toThrow();
  });

  it("refuses a file over 512 MB with 413 file_too_large", () => {
    const error = thrown(() => checkUpload("train.jsonl", MAX_FILE_BYTES + 1, "fine-tune"));

    expect(error).toMatchObject({ status: 413, type: "invalid_request_error", code: "file_too_large" });
  });

  it("refuses a non-JSONL file for fine-tuning with 400 invalid_file_type on the file", () => {
    const error = thrown(() => checkUpload("train.json", 100, "fine-tune"));

    expect(error).toMatchObject({ status: 400, type: "invalid_request_error", code: "invalid_file_type", param: "file" });
  });

  it("accepts the .jsonl extension in any case for fine-tuning", () => {
    expect(() => checkUpload("TRAIN.JSONL", 100, "fine-tune")).not.toThrow();
  });

  it.each(["batch", "ocr"] as const)("accepts any extension for purpose %s", (purpose) => {
    expect(() => checkUpload("scan.pdf", 100, purpose)).not.toThrow();
  });

  it.each(["a/b.jsonl", "a\\b.jsonl", "a\nb.jsonl", "a\u0000b.jsonl"])("refuses the file name %j with 400 invalid_filename", (filename) => {
    const error = thrown(() => checkUpload(filename, 100, "batch"));

    expect(error).toMatchObject({ status: 400, code: "invalid_filename", param: "file" });
  });
});

describe("countLines", () => {
  it("does not count a trailing newline as a line", () => {
    expect(countLines('{"a":1}\n{"a":2}\n')).toBe(2);
  });

  it("counts a last line without a newline", () => {
    expect(countLines('{"a":1}\n{"a":2}')).toBe(2);
  });

  it("skips blank and whitespace-only lines", () => {
    expect(countLines('{"a":1}\n\n   \n\t\n{"a":2}\n')).toBe(2);
  });

  it("counts CRLF lines once each", () => {
    expect(countLines('{"a":1}\r\n{"a":2}\r\n\r\n')).toBe(2);
  });

  it("counts nothing in an empty document", () => {
    expect(countLines("")).toBe(0);
  });
});

describe("LineCounter", () => {
  const counted = (...chunks: string[]) => {
    const counter = new LineCounter();
    for (const chunk of chunks) counter.push(Buffer.from(chunk));
    return counter.total();
  };

  it("counts a line split across chunks once", () => {
    expect(counted('{"a"', ':1}\n{"b"', ":2}\n")).toBe(2);
  });

  it("counts a newline that starts a chunk", () => {
    expect(counted('{"a":1}', '\n{"b":2}', "\n")).toBe(2);
  });

  it("counts a last line without a newline", () => {
    expect(counted('{"a":1}\n', '{"b":2}')).toBe(2);
  });

  it("skips blank, whitespace-only and CRLF-only lines spread over chunks", () => {
    expect(counted('{"a":1}\r', "\n \t", "\r\n\n", '{"b":2}\r\n')).toBe(2);
  });

  it("counts nothing without chunks", () => {
    expect(counted()).toBe(0);
  });

  it("agrees with countLines wherever the document is cut", () => {
    const text = '{"a":1}\n\n  \n{"b":"é"}\r\n\t{"c":3}\n{"d":4}';
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const counter = new LineCounter();
      counter.push(bytes.subarray(0, cut));
      counter.push(bytes.subarray(cut));
      expect(counter.total(), `cut at byte ${cut}`).toBe(countLines(text));
    }
  });
});

describe("JsonlSniffer", () => {
  const sniff = (chunks: (string | Uint8Array)[]) => {
    const sniffer = new JsonlSniffer();
    for (const chunk of chunks) sniffer.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    return sniffer.result();
  };

  it("judges a document cut anywhere the way looksLikeJsonl judges it whole", () => {
    const documents = ['{"a":1}\n{"b":[1,2]}\n', '{"a":1}\n\n  \n{"b":2}', '{"a":1}\n[1]\n', '{"a":"é"}\r\n{"b":2}\r\n', "", "\n\n", '{"a":1}\nnot json\n', '"text"\n'];
    for (const document of documents) {
      const bytes = Buffer.from(document);
      for (let cut = 0; cut <= bytes.length; cut += 1) {
        expect(sniff([bytes.subarray(0, cut), bytes.subarray(cut)]), `${JSON.stringify(document)} cut at ${cut}`).toBe(looksLikeJsonl(document));
      }
    }
  });

  it("refuses invalid UTF-8 even when a multi-byte character is split across chunks correctly", () => {
    const valid = Buffer.from('{"a":"€"}\n');
    expect(sniff([valid.subarray(0, 8), valid.subarray(8)])).toBe(true);
    expect(sniff([Buffer.from('{"a":"'), Uint8Array.of(0xff), Buffer.from('"}\n')])).toBe(false);
  });

  it("judges a line longer than it holds not JSON lines, holding nothing more", () => {
    const sniffer = new JsonlSniffer();
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    sniffer.push(Buffer.from('{"a":"'));
    for (let i = 0; i <= MAX_JSONL_LINE_BYTES / chunk.length; i += 1) sniffer.push(chunk);
    sniffer.push(Buffer.from('"}\n'));
    expect(sniffer.result()).toBe(false);
  });
});

describe("expiresAtFor", () => {
  it("adds the expiry in hours to the creation time", () => {
    expect(expiresAtFor(1_700_000_000, 24)).toBe(1_700_000_000 + 86_400);
  });

  it.each([null, undefined])("answers null for an expiry of %j", (hours) => {
    expect(expiresAtFor(1_700_000_000, hours)).toBeNull();
  });
});

describe("isExpired", () => {
  it("treats a file as expired from its expiry second on", () => {
    expect(isExpired({ expiresAt: 100 }, 100)).toBe(true);
  });

  it("treats a file as live before its expiry second", () => {
    expect(isExpired({ expiresAt: 100 }, 99)).toBe(false);
  });

  it("never expires a file without expiry", () => {
    expect(isExpired({ expiresAt: null }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe("visibleTo", () => {
  it("shows workspace files to anyone in the workspace", () => {
    expect(visibleTo(aFile({ visibility: "workspace" }), aCaller())).toBe(true);
  });

  it("shows user files to their owner", () => {
    const caller = aCaller();
    expect(visibleTo(aFile({ visibility: "user", owner: caller.principal }), caller)).toBe(true);
  });

  it("hides user files from everyone else", () => {
    expect(visibleTo(aFile({ visibility: "user" }), aCaller())).toBe(false);
  });
});

describe("sampleTypeFor", () => {
  it("makes batch files batch requests", () => {
    expect(sampleTypeFor("batch")).toBe("batch_request");
  });

  it.each(["fine-tune", "ocr"] as const)("makes %s files instruct samples", (purpose) => {
    expect(sampleTypeFor(purpose)).toBe("instruct");
  });
});

describe("objectKeyFor", () => {
  it("puts every object under its workspace prefix", () => {
    expect(objectKeyFor("ws-1", "file-1")).toBe("workspaces/ws-1/files/file-1");
  });
});

describe("toFileOut", () => {
  it("shows exactly the File fields, in wire names", () => {
    const file = aFile({ bytes: 9, numLines: 4, signature: "sig", expiresAt: 1_800_000_000, visibility: "user", source: "mistral", sampleType: "pretrain" });

    expect(toFileOut(file)).toStrictEqual({
      id: file.id,
      object: "file",
      bytes: 9,
      created_at: file.createdAt,
      filename: file.filename,
      purpose: file.purpose,
      sample_type: "pretrain",
      source: "mistral",
      num_lines: 4,
      mimetype: file.mimetype,
      signature: "sig",
      expires_at: 1_800_000_000,
      visibility: "user",
    });
  });
});
