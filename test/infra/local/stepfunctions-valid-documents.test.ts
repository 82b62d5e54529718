/**
 * The local Step Functions' memory of validated documents (infra/local/stepfunctions/valid-documents.ts): a
 * document is validated once per checkout, a refused one every time.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { validatorCacheDir, validDocuments } from "../../../infra/local/stepfunctions/valid-documents.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const cacheDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "asl-valid-"));
  dirs.push(dir);
  return join(dir, "cache");
};

const machine = (comment: string) => ({ Comment: comment, StartAt: "Done", States: { Done: { Type: "Succeed" } } });

/** A validator that counts its calls and refuses documents whose Comment says so. */
function countingValidator() {
  const seen: unknown[] = [];
  const validate = (document: unknown) => {
    seen.push(document);
    if ((document as { Comment: string }).Comment === "refuse me") throw new Error("State machine definition is invalid");
  };
  return { seen, validate };
}

describe("validated documents", () => {
  it("validates a document once, however often it is compiled", () => {
    const { seen, validate } = countingValidator();
    const valid = validDocuments(cacheDir());
    valid.check(machine("a"), validate);
    valid.check(machine("a"), validate);
    valid.check(machine("b"), validate);
    expect(seen).toStrictEqual([machine("a"), machine("b")]);
  });

  it("shares what it accepted with the next process through its folder", () => {
    const dir = cacheDir();
    validDocuments(dir).check(machine("a"), countingValidator().validate);
    expect(readdirSync(dir)).toHaveLength(1);

    const next = countingValidator();
    validDocuments(dir).check(machine("a"), next.validate);
    validDocuments(dir).check(machine("c"), next.validate);
    expect(next.seen).toStrictEqual([machine("c")]);
  });

  it("refuses a refused document every time, and remembers nothing of it", () => {
    const dir = cacheDir();
    const { seen, validate } = countingValidator();
    const valid = validDocuments(dir);
    expect(() => valid.check(machine("refuse me"), validate)).toThrow(/invalid/);
    expect(() => valid.check(machine("refuse me"), validate)).toThrow(/invalid/);
    expect(() => validDocuments(dir).check(machine("refuse me"), validate)).toThrow(/invalid/);
    expect(seen).toHaveLength(3);
    expect(existsSync(dir)).toBe(false);
  });

  it("keeps its files per version of the validator, in the checkout's node_modules/.cache", () => {
    expect(validatorCacheDir()).toMatch(/node_modules\/\.cache\/asl-valid\/\d+\.\d+\.\d+$/);
  });
});
