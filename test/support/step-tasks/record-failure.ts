import { record } from "./calls.js";

export async function handler(input: unknown) {
  record("recordFailure", input);
}
