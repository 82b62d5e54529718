/**
 * A fixed corpus of varied text for the tokenizers' golden data (test/unit/inference/tokenizer-golden.test.ts)
 * and their bench (bench/tokenizers.ts): prose in several scripts, code, JSON, emoji and ZWJ sequences,
 * whitespace runs, newlines, tabs and mixtures. Built from the fragments below by a seeded generator, so the
 * same samples come out on every machine and no large text is committed.
 */

export type CorpusKind = "latin" | "cyrillic" | "cjk" | "arabic" | "devanagari" | "code" | "json" | "emoji" | "whitespace" | "mixed";

const FRAGMENTS: Record<Exclude<CorpusKind, "mixed">, readonly string[]> = {
  latin: [
    "The quick brown fox jumps over the lazy dog.",
    "Le cœur a ses raisons que la raison ne connaît point.",
    "Über den Wolken muss die Freiheit wohl grenzenlos sein.",
    "¿Dónde está la biblioteca? Está al lado de la estación.",
    "Zażółć gęślą jaźń, powiedziała Małgorzata.",
    "Em São Paulo, a reunião começa às nove horas.",
    "Kärlek och ära, fjällens ljus över sjön.",
    "It's 3:45 p.m.; the meeting (re: Q3 budget) moved to Room 101 — again!",
    "Naïve café owners façade résumé coöperate.",
    "In 2024, revenue grew 12.5% to $4,200,000 (up from $3.73M).",
  ],
  cyrillic: [
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Москва — столица России, крупнейший город Европы.",
    "Україна має багату історію та культуру.",
    "Ђуро је купио хлеб и млеко у продавници.",
  ],
  cjk: [
    "我能吞下玻璃而不伤身体。",
    "人工智能正在改变世界的各个方面，包括医疗、教育和交通。",
    "東京は日本の首都であり、世界で最も人口の多い都市圏の一つです。",
    "すもももももももものうち。カタカナとひらがなを混ぜる。",
    "다람쥐 헌 쳇바퀴에 타고파. 한국어 문장입니다.",
    "龘靐齉爩麤鬱驫飝",
  ],
  arabic: [
    "العربية لغة جميلة، يتحدث بها أكثر من أربعمائة مليون شخص.",
    "مرحبا بالعالم! كيف حالك اليوم؟",
    "שלום עולם, זהו משפט בעברית.",
  ],
  devanagari: [
    "हिन्दी भारत की एक प्रमुख भाषा है।",
    "नमस्ते दुनिया, आप कैसे हैं?",
    "संस्कृतम् जगतः एकतमा अतिप्राचीना भाषा अस्ति।",
  ],
  code: [
    "def fibonacci(n: int) -> int:\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n",
    "export async function handler(event: APIGatewayProxyEvent): Promise<Result> {\n\tconst body = JSON.parse(event.body ?? \"{}\");\n\treturn { statusCode: 200, body };\n}\n",
    "#include <stdio.h>\nint main(void) {\n  for (int i = 0; i < 10; ++i) printf(\"%d\\n\", i * i);\n  return 0;\n}\n",
    "SELECT u.id, COUNT(*) AS n FROM users u JOIN orders o ON o.user_id = u.id WHERE o.total > 100 GROUP BY u.id HAVING n >= 3;\n",
    "fn main() { let v: Vec<u64> = (1..=20).map(|x| x * x).collect(); println!(\"{:?}\", v); }\n",
    "<div class=\"card\" data-id=\"42\"><h2>Title</h2><p>Body &amp; more</p></div>\n",
    "  if [[ -z \"$HOME\" ]]; then echo 'no home' >&2; exit 1; fi\n",
  ],
  json: [
    '{"model":"mistral-small-latest","messages":[{"role":"user","content":"Hello"}],"temperature":0.7}',
    '{"id":"cmpl-9f8e7d","object":"chat.completion","usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}}',
    '[1, 2.5, -3e10, true, false, null, "ünïcødé", {"nested": {"deep": [[], {}]}}]',
    '{\n  "name": "example",\n  "version": "1.0.0",\n  "scripts": {\n    "test": "vitest run"\n  }\n}',
  ],
  emoji: [
    "🚀🔥✨ Launch day! 🎉🎉🎉",
    "👨‍👩‍👧‍👦 family, 👩🏽‍💻 coder, 🏳️‍🌈 flag, 🇫🇷🇯🇵 flags",
    "❤️ 😀😃😄😁😆😅😂🤣 🥲 🫠",
    "Thumbs 👍🏻👍🏼👍🏽👍🏾👍🏿 and a keycap 1️⃣ #️⃣",
  ],
  whitespace: [
    "    ",
    "\t\t\t",
    "\n\n\n",
    "  \n  \n",
    " \t \r\n",
    "          trailing spaces          ",
    "\u00a0non-breaking\u2003em space\u200bzero width",
  ],
};

const KINDS = Object.keys(FRAGMENTS) as Exclude<CorpusKind, "mixed">[];

/** mulberry32: a small seeded generator, so the corpus is the same everywhere. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEPARATORS = [" ", " ", " ", "\n", "\n\n", "\t", "  ", ", ", ". "];

/** One sample of about `chars` UTF-16 units: fragments of `kind` (every kind for "mixed") joined by separators. */
export function corpusSample(kind: CorpusKind, chars: number, seed: number): string {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  let text = "";
  while (text.length < chars) {
    const fragments = FRAGMENTS[kind === "mixed" ? pick(KINDS) : kind];
    text += pick(fragments) + pick(SEPARATORS);
  }
  return text;
}

export interface CorpusEntry {
  name: string;
  text: string;
}

/** The golden corpus: every kind at a few sizes, and each fragment alone. */
export function goldenCorpus(): CorpusEntry[] {
  const entries: CorpusEntry[] = [];
  for (const kind of KINDS) FRAGMENTS[kind].forEach((text, i) => entries.push({ name: `${kind}-fragment-${i}`, text }));
  const kinds: CorpusKind[] = [...KINDS, "mixed"];
  kinds.forEach((kind, k) => {
    for (const [j, chars] of [64, 512, 4096].entries()) entries.push({ name: `${kind}-${chars}`, text: corpusSample(kind, chars, 1000 + k * 10 + j) });
  });
  // Moderate runs of one character: the old encoder finishes these in well under a second each.
  for (const [name, unit] of RUN_UNITS) for (const n of [1, 2, 17, 300]) entries.push({ name: `run-${name}-${n}`, text: unit.repeat(n) });
  return entries;
}

/** The single units of the adversarial runs (test/support/adversarial-text.ts repeats them at length). */
export const RUN_UNITS: readonly (readonly [string, string])[] = [
  ["a", "a"],
  ["space", " "],
  ["newline", "\n"],
  ["tab", "\t"],
  ["crlf", "\r\n"],
  ["e-acute", "é"],
  ["cjk", "漢"],
  ["emoji", "😀"],
  ["digit", "7"],
  ["dot", "."],
];
