import { countTokens } from "../../inference/tokenizer.js";
import { BadRequest } from "../../domain/errors.js";
import { certainlyOverTokens, certainlyWithinTokens, type ModelEntry } from "../../domain/models.js";

/**
 * Each input's tokens, as the model counts them, counted on first use; an input over the model's context is
 * a 400 naming it. Inputs whose bytes settle the check are not counted for it (an upstream that reports
 * usage then leaves them uncounted altogether).
 */
export function tokensPerInput(model: Pick<ModelEntry, "id" | "tokenizer" | "maxContextLength">, inputs: string[]): () => number[] {
  const bytes = inputs.map((text) => Buffer.byteLength(text));
  const overlong = bytes.findIndex((n) => certainlyOverTokens(n, model.tokenizer, model.maxContextLength));
  if (overlong >= 0) {
    throw new BadRequest(`input[${overlong}] is ${bytes[overlong]} bytes, more than the ${model.maxContextLength}-token limit of '${model.id}' can hold`, "input_too_long", "input");
  }
  const counted = new Map<number, number>();
  const tokensOf = (i: number) => {
    if (!counted.has(i)) counted.set(i, countTokens(model.tokenizer, inputs[i]!));
    return counted.get(i)!;
  };
  const tooLong = inputs.findIndex((_, i) => !certainlyWithinTokens(bytes[i]!, model.maxContextLength) && tokensOf(i) > model.maxContextLength);
  if (tooLong >= 0) {
    throw new BadRequest(`input[${tooLong}] is ${tokensOf(tooLong)} tokens, over the ${model.maxContextLength}-token limit of '${model.id}'`, "input_too_long", "input");
  }
  return () => inputs.map((_, i) => tokensOf(i));
}
