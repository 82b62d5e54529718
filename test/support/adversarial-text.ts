/**
 * Adversarial prompt text for the fuzz ring's model-call routes (issue 24.0): long runs of one character,
 * of whitespace, of newlines, of one multi-byte character, sized under the routes' byte bounds. Each is one
 * pre-token of tens to hundreds of kilobytes: the input that made the package's Tekken encoder quadratic
 * (20 KB of "a" took ~26 s on the event loop). The ring sends them in a valid body and holds every
 * request to its time budget (fuzz-ring.ts, docs/testing.md).
 */
import fc from "fast-check";
import { RUN_UNITS } from "./tokenizer-corpus.js";

/** Sizes in UTF-8 bytes: from the 20 KB to 200 KB. */
export const ADVERSARIAL_BYTES = [20_000, 64_000, 200_000] as const;

/** Fields that carry a model call's text: chat and agent messages, FIM, embeddings, moderation and classification inputs. */
const TEXT_FIELDS = new Set(["content", "prompt", "suffix", "input", "inputs", "query", "text"]);

/** One run: `unit` repeated to about `bytes` bytes. */
export const adversarialRun = (unit: string, bytes: number): string => unit.repeat(Math.max(1, Math.floor(bytes / Buffer.byteLength(unit))));

export const adversarialText: fc.Arbitrary<{ how: string; text: string }> = fc
  .tuple(fc.constantFrom(...RUN_UNITS), fc.constantFrom(...ADVERSARIAL_BYTES))
  .map(([[name, unit], bytes]) => ({ how: `${bytes} B run of ${name}`, text: adversarialRun(unit, bytes) }));

/** `value` with every string (or string in an array) under a text field replaced by `text`. */
export function withText(value: unknown, text: string): unknown {
  if (Array.isArray(value)) return value.map((item) => withText(item, text));
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      if (TEXT_FIELDS.has(key) && typeof field === "string") return [key, text];
      if (TEXT_FIELDS.has(key) && Array.isArray(field) && field.every((item) => typeof item === "string")) return [key, field.map(() => text)];
      return [key, withText(field, text)];
    }),
  );
}

/** Valid bodies of a model-call route with their text made adversarial. */
export const adversarialBodies = (good: fc.Arbitrary<unknown>): fc.Arbitrary<{ variant: string; contentType: string; text: string }> =>
  fc.tuple(good, adversarialText).map(([body, { how, text }]) => ({ variant: `adversarial text: ${how}`, contentType: "application/json", text: JSON.stringify(withText(body, text)) }));
