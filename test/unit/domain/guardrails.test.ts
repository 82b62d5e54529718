import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockingVerdict,
  checksOf,
  crossingsOf,
  GuardrailBlocked,
  guardrailAttributes,
  mergedScores,
  piecesWithin,
  verdictOf,
  type GuardrailCheck,
  type ModerationScores,
} from "../../../shared/domain/guardrails.js";
import { GuardrailConfig } from "../../../shared/schemas/guardrails.js";

/** Configs as a request's body gives them, with the schema's defaults. */
const configs = (...given: unknown[]) => given.map((c) => GuardrailConfig.parse(c));

/** A moderation result scoring `scores`, flagging the categories at 0.5 or more (as a model's own flags would). */
const scored = (scores: Record<string, number>): ModerationScores => ({
  categoryScores: scores,
  categories: Object.fromEntries(Object.entries(scores).map(([c, s]) => [c, s >= 0.5])),
});

const aCheck = (overrides: Partial<GuardrailCheck> = {}): GuardrailCheck => ({
  config: 0,
  name: "moderation_llm_v2",
  model: "mistral-moderation-2603",
  thresholds: {},
  ignoreOtherCategories: false,
  action: "block",
  blockOnError: false,
  ...overrides,
});

describe("the checks a list of guardrails asks for", () => {
  it("are each config's v1 then v2 check, in the list's order, with Mistral's default models", () => {
    const checks = checksOf(configs({ moderation_llm_v2: {} }, { block_on_error: true, moderation_llm_v1: { action: "block" }, moderation_llm_v2: { model_name: "my-moderation" } }));

    expect(checks.map((c) => [c.config, c.name, c.model, c.action, c.blockOnError])).toStrictEqual([
      [0, "moderation_llm_v2", "mistral-moderation-2603", "none", false],
      [1, "moderation_llm_v1", "mistral-moderation-2411", "block", true],
      [1, "moderation_llm_v2", "my-moderation", "none", true],
    ]);
  });

  it("are none for an empty list or configs without a check", () => {
    expect(checksOf([])).toStrictEqual([]);
    expect(checksOf(configs({ block_on_error: true }, { moderation_llm_v1: null }))).toStrictEqual([]);
  });

  it("keep the custom thresholds given, leaving out those given as null", () => {
    const [check] = checksOf(configs({ moderation_llm_v1: { custom_category_thresholds: { sexual: 0.2, pii: null, dangerous_and_criminal_content: 0 } } }));

    expect(check!.thresholds).toStrictEqual({ sexual: 0.2, dangerous_and_criminal_content: 0 });
  });

  it("take each version's own category names (v2's dangerous, criminal and jailbreaking; v1's dangerous_and_criminal_content)", () => {
    const [v1, v2] = checksOf(
      configs({
        moderation_llm_v1: { custom_category_thresholds: { dangerous_and_criminal_content: 0.3, jailbreaking: 0.1 } },
        moderation_llm_v2: { custom_category_thresholds: { dangerous: 0.3, criminal: 0.4, jailbreaking: 0.1, dangerous_and_criminal_content: 0.2 } },
      }),
    );

    // Names of the other version are not fields of this one: the schema drops them.
    expect(v1!.thresholds).toStrictEqual({ dangerous_and_criminal_content: 0.3 });
    expect(v2!.thresholds).toStrictEqual({ dangerous: 0.3, criminal: 0.4, jailbreaking: 0.1 });
  });
});

describe("the categories a check finds over their limits", () => {
  it("are those at or over their custom threshold, with the threshold reached", () => {
    const crossings = crossingsOf(aCheck({ thresholds: { violence_and_threats: 0.4, health: 0.9 } }), scored({ violence_and_threats: 0.4, health: 0.3 }));

    expect(crossings).toStrictEqual([{ category: "violence_and_threats", score: 0.4, threshold: 0.4 }]);
  });

  it("are the model's own flags for the categories without a custom threshold", () => {
    const crossings = crossingsOf(aCheck({ thresholds: { health: 0.9 } }), scored({ sexual: 0.7, health: 0.6, pii: 0.1 }));

    expect(crossings).toStrictEqual([{ category: "sexual", score: 0.7, threshold: null }]);
  });

  it("are only the custom ones when ignore_other_categories is set", () => {
    const check = aCheck({ thresholds: { pii: 0.05 }, ignoreOtherCategories: true });

    expect(crossingsOf(check, scored({ sexual: 0.99, pii: 0.1 }))).toStrictEqual([{ category: "pii", score: 0.1, threshold: 0.05 }]);
    expect(crossingsOf(check, scored({ sexual: 0.99 }))).toStrictEqual([]);
  });

  it("never include a custom category the model does not score (a v2 category read by a v1 model)", () => {
    expect(crossingsOf(aCheck({ thresholds: { jailbreaking: 0 } }), scored({ dangerous_and_criminal_content: 0.1 }))).toStrictEqual([]);
  });

  it("(property) grow as a threshold falls: a crossing at one threshold stays a crossing at any lower one", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (score, high, drop) => {
        const low = high * drop;
        const at = (threshold: number) => crossingsOf(aCheck({ thresholds: { health: threshold } }), scored({ health: score })).length;
        return at(high) <= at(low);
      }),
    );
  });

  it("(property) with ignore_other_categories, never include a category without a custom threshold", () => {
    const categories = fc.constantFrom("sexual", "health", "pii", "law", "financial", "jailbreaking");
    fc.assert(
      fc.property(fc.dictionary(categories, fc.double({ min: 0, max: 1, noNaN: true })), fc.dictionary(categories, fc.double({ min: 0, max: 1, noNaN: true })), (scores, thresholds) => {
        const crossings = crossingsOf(aCheck({ thresholds, ignoreOtherCategories: true }), scored(scores));
        return crossings.every((c) => c.category in thresholds && c.score >= thresholds[c.category]!);
      }),
    );
  });
});

describe("a check's verdict", () => {
  it("blocks when something crossed and its action is block; only flags when its action is none", () => {
    expect(verdictOf(aCheck({ action: "block" }), scored({ sexual: 0.8 }))).toMatchObject({ outcome: "blocked" });
    expect(verdictOf(aCheck({ action: "none" }), scored({ sexual: 0.8 }))).toMatchObject({ outcome: "flagged" });
    expect(verdictOf(aCheck(), scored({ sexual: 0.1 }))).toMatchObject({ outcome: "passed" });
  });

  it("on a failed moderation, blocks only with block_on_error and a check that could block", () => {
    expect(verdictOf(aCheck({ blockOnError: true }), "failed")).toMatchObject({ outcome: "failed", blocks: true });
    expect(verdictOf(aCheck({ blockOnError: false }), "failed")).toMatchObject({ outcome: "failed", blocks: false });
    expect(verdictOf(aCheck({ blockOnError: true, action: "none" }), "failed")).toMatchObject({ outcome: "failed", blocks: false });
  });

  it("(property) of a check whose action is none never blocks, whatever the scores or failures", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.double({ min: 0, max: 1, noNaN: true })), fc.boolean(), fc.boolean(), (scores, failed, blockOnError) => {
        const verdict = verdictOf(aCheck({ action: "none", blockOnError }), failed ? "failed" : scored(scores));
        return blockingVerdict([verdict]) === undefined;
      }),
    );
  });
});

describe("several checks", () => {
  it("are stopped by the first one that blocks, in the list's order", () => {
    const verdicts = [
      verdictOf(aCheck({ config: 0, action: "none" }), scored({ sexual: 0.9 })),
      verdictOf(aCheck({ config: 1, name: "moderation_llm_v1" }), scored({ pii: 0.9 })),
      verdictOf(aCheck({ config: 2, blockOnError: true }), "failed"),
    ];

    expect(blockingVerdict(verdicts)).toBe(verdicts[1]);
    expect(blockingVerdict(verdicts.slice(0, 1))).toBeUndefined();
  });

  it("say on the span what each found, and which one blocked", () => {
    const verdicts = [verdictOf(aCheck({ config: 0, action: "none" }), scored({ sexual: 0.91234 })), verdictOf(aCheck({ config: 1, thresholds: { pii: 0.5 } }), scored({ pii: 0.75, law: 0.6 }))];

    const attributes = guardrailAttributes(verdicts);

    expect(attributes).toMatchObject({
      "platform.guardrail.check": "moderation_llm_v2",
      "platform.guardrail.config": "1",
      "platform.guardrail.model": "mistral-moderation-2603",
      "platform.guardrail.outcome": "blocked",
      "platform.guardrail.categories": "pii=0.75,law=0.6",
    });
    expect(JSON.parse(attributes["platform.guardrail.verdicts"]!)).toStrictEqual([
      { config: 0, check: "moderation_llm_v2", model: "mistral-moderation-2603", action: "none", outcome: "flagged", categories: "sexual=0.9123" },
      { config: 1, check: "moderation_llm_v2", model: "mistral-moderation-2603", action: "block", outcome: "blocked", categories: "pii=0.75,law=0.6" },
    ]);
    expect(guardrailAttributes([])).toStrictEqual({});
  });
});

describe("the refusal of a blocked call", () => {
  it("is a 403 guardrail_blocked naming the check, its model and each category with its score", () => {
    const error = new GuardrailBlocked(verdictOf(aCheck({ config: 2, thresholds: { pii: 0.5 } }), scored({ pii: 0.75, law: 0.6 })));

    expect([error.status, error.type, error.code]).toStrictEqual([403, "permission_error", "guardrail_blocked"]);
    expect(error.message).toBe("The request was blocked by guardrail moderation_llm_v2 of guardrails[2] (model mistral-moderation-2603): pii 0.75 (threshold 0.5), law 0.6 (flagged by the model)");
  });

  it("is a 403 guardrail_unavailable when a check could not be evaluated under block_on_error", () => {
    const error = new GuardrailBlocked(verdictOf(aCheck({ blockOnError: true, name: "moderation_llm_v1", model: "m" }), "failed"));

    expect([error.status, error.code]).toStrictEqual([403, "guardrail_unavailable"]);
    expect(error.message).toBe("The request was blocked: guardrail moderation_llm_v1 of guardrails[0] (model m) could not be evaluated and its block_on_error is true");
  });
});

describe("a conversation longer than the moderation model's context", () => {
  it("is cut into pieces of at most the bytes given, on character boundaries, nothing lost", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.integer({ min: 4, max: 40 }), (text, max) => {
        const pieces = piecesWithin(text, max);
        return pieces.join("") === text && pieces.every((p) => Buffer.byteLength(p) <= max) && pieces.every((p) => !/^[\uDC00-\uDFFF]/.test(p));
      }),
    );
  });

  it("is scored as one: each category's highest score, flagged where any piece was", () => {
    expect(mergedScores([scored({ sexual: 0.2, pii: 0.9 }), scored({ sexual: 0.6, pii: 0.1 })])).toStrictEqual({ categoryScores: { sexual: 0.6, pii: 0.9 }, categories: { sexual: true, pii: true } });
  });
});
