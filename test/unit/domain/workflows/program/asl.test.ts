/**
 * asl-validator's findings on a compiled document (shared/domain/workflows/program/asl.ts), and its memory of
 * the documents it accepted: the validator compiles its schemas on every call, so an accepted document is not
 * validated again; a refused one is, every time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { aslIssues } from "../../../../../shared/domain/workflows/program/asl.js";
import type { JsonObject } from "../../../../../shared/domain/workflows/program/types.js";

const validator = vi.hoisted(() => ({ calls: 0, answerAsIs: true }));
vi.mock("asl-validator", async (importOriginal) => {
  const real = ((await importOriginal()) as { default: (definition: unknown, options: unknown) => { isValid: boolean; errors: unknown[] } }).default;
  return {
    default: (definition: unknown, options: unknown) => {
      validator.calls += 1;
      return validator.answerAsIs ? real(definition, options) : { isValid: true, errors: [] };
    },
  };
});

afterEach(() => {
  validator.calls = 0;
  validator.answerAsIs = true;
});

let named = 0;
/** A document no other test has used: one Pass state, its Comment unique. */
const aMachine = (): JsonObject => ({ Comment: `machine ${(named += 1)}`, StartAt: "Done", States: { Done: { Type: "Pass", End: true } } });
/** The same, with a Wait state asl-validator refuses (no duration). */
const aRefusedMachine = (): JsonObject => ({ Comment: `refused ${(named += 1)}`, StartAt: "Hold", States: { Hold: { Type: "Wait", End: true } } });

describe("aslIssues", () => {
  it("validates an accepted document once", () => {
    const machine = aMachine();
    expect(aslIssues(machine)).toStrictEqual([]);
    expect(aslIssues(structuredClone(machine))).toStrictEqual([]);
    expect(validator.calls).toBe(1);
  });

  it("validates a refused document every time, and finds the same issues", () => {
    const machine = aRefusedMachine();
    const first = aslIssues(machine);
    expect(first).not.toHaveLength(0);
    expect(first[0]).toMatchObject({ rule: "asl" });
    expect(aslIssues(machine)).toStrictEqual(first);
    expect(validator.calls).toBe(2);
  });

  it("keeps the last thousand accepted documents, forgetting the oldest first", () => {
    validator.answerAsIs = false;
    const oldest = aMachine();
    aslIssues(oldest);
    for (let i = 0; i < 1_000; i += 1) aslIssues(aMachine());
    validator.calls = 0;
    aslIssues(oldest);
    expect(validator.calls).toBe(1);
  });
});
