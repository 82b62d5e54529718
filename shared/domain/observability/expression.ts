/**
 * THE parser of the search expression (docs/observability/engine.md, "The expression language"). It turns
 * the caller's text into one filter tree whose field names are checked against the kind's catalogue and
 * whose values are typed literals; the query builder (query.ts) turns that tree into SQL with every value a
 * bound parameter. Nothing of the text is ever spliced into SQL.
 *
 *   expr       := or
 *   or         := and (OR and)*
 *   and        := unary (AND unary)*
 *   unary      := NOT unary | '(' expr ')' | call | condition
 *   call       := (has|hasAny|hasAll|hasToken|contains|exists|not_exists) '(' field [',' value | ',' list] ')'
 *   condition  := field cmp value                         cmp: = == != <> < <= > >=
 *               | field [NOT] (LIKE|ILIKE|REGEXP|CONTAINS) string
 *               | field [NOT] IN list
 *               | field [NOT] BETWEEN value AND value
 *               | field [NOT] EXISTS  |  field IS [NOT] NULL
 *               | field op operand                        op: any operator name of the catalogue (eq, not_like, hasAny, …)
 *   field      := name ['[' string ']' | '.' key]          a MAP field's key: attributes['gen_ai.system'] or attributes.gen_ai.system
 *   list       := '(' value (',' value)* ')' | '[' value (',' value)* ']'
 *   value      := 'single' | "double" quoted string (backslash escapes \\ \' \")  |  number  |  true | false
 */
import { fieldOf, type Field, type Operator } from "./fields.js";
import type { TelemetryKind } from "./records.js";

export type Literal = string | number;

export interface FieldRef {
  field: Field;
  /** A MAP field's key. */
  key?: string;
}

export type Filter =
  | { kind: "and" | "or"; items: Filter[] }
  | { kind: "not"; item: Filter }
  | { kind: "condition"; ref: FieldRef; op: Operator; values: Literal[] };

/** The expression is not one the grammar or the catalogue accepts: where (0-based character offset) and why. */
export class ExpressionError extends Error {
  constructor(
    readonly position: number,
    readonly problem: string,
    readonly syntax: boolean,
  ) {
    super(`search_expression at position ${position}: ${problem}`);
  }
}

type Token =
  | { t: "ident"; v: string; at: number }
  | { t: "string"; v: string; at: number }
  | { t: "number"; v: number; at: number }
  | { t: "punct"; v: string; at: number }
  | { t: "end"; at: number };

const MAX_LENGTH = 10_000;
const MAX_DEPTH = 50;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === "'" || c === '"') {
      let value = "";
      i++;
      for (;;) {
        if (i >= text.length) throw new ExpressionError(at, "unterminated string", true);
        const d = text[i]!;
        if (d === "\\" && i + 1 < text.length) {
          value += text[i + 1];
          i += 2;
        } else if (d === c) {
          // SQL-style doubled quote inside a string
          if (text[i + 1] === c) {
            value += c;
            i += 2;
          } else {
            i++;
            break;
          }
        } else {
          value += d;
          i++;
        }
      }
      tokens.push({ t: "string", v: value, at });
      continue;
    }
    const number = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(text.slice(i));
    if (number && (c !== "-" || /\d|\./.test(text[i + 1] ?? ""))) {
      tokens.push({ t: "number", v: Number(number[0]), at });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (ident) {
      tokens.push({ t: "ident", v: ident[0], at });
      i += ident[0].length;
      continue;
    }
    const punct = /^(?:<=|>=|!=|<>|==|[=<>()[\],.])/.exec(text.slice(i));
    if (punct) {
      tokens.push({ t: "punct", v: punct[0], at });
      i += punct[0].length;
      continue;
    }
    throw new ExpressionError(at, `unexpected character '${c}'`, true);
  }
  tokens.push({ t: "end", at: text.length });
  return tokens;
}

const CMP: Record<string, Operator> = { "=": "eq", "==": "eq", "!=": "neq", "<>": "neq", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte" };
const FUNCTIONS = new Set(["has", "hasany", "hasall", "hastoken", "contains", "exists", "not_exists"]);
const NAMED_OPS = new Map<string, Operator>(
  ["eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike", "not_like", "not_ilike", "between", "not_between", "in", "not_in", "exists", "not_exists", "regexp", "not_regexp", "contains", "not_contains", "has", "hasAny", "hasAll", "hasToken"].map(
    (op) => [op.toLowerCase(), op as Operator],
  ),
);
const NEGATED: Partial<Record<Operator, Operator>> = { like: "not_like", ilike: "not_ilike", regexp: "not_regexp", contains: "not_contains", in: "not_in", between: "not_between", exists: "not_exists" };

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly kind: TelemetryKind,
  ) {}

  private get peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    return this.tokens[this.i++]!;
  }
  private fail(token: Token, problem: string, syntax = true): never {
    throw new ExpressionError(token.at, problem, syntax);
  }
  private describe(token: Token): string {
    return token.t === "end" ? "the end of the expression" : token.t === "string" ? `'${token.v}'` : `'${String(token.v)}'`;
  }
  private isWord(word: string, token = this.peek): boolean {
    return token.t === "ident" && token.v.toLowerCase() === word;
  }
  private isPunct(p: string, token = this.peek): boolean {
    return token.t === "punct" && token.v === p;
  }
  private expectPunct(p: string): Token {
    const token = this.next();
    if (!this.isPunct(p, token)) this.fail(token, `expected '${p}' but found ${this.describe(token)}`);
    return token;
  }

  parse(): Filter {
    const filter = this.or();
    if (this.peek.t !== "end") this.fail(this.peek, `unexpected ${this.describe(this.peek)}: expected AND, OR or the end`);
    return filter;
  }

  private or(): Filter {
    const items = [this.and()];
    while (this.isWord("or")) {
      this.next();
      items.push(this.and());
    }
    return items.length === 1 ? items[0]! : { kind: "or", items };
  }

  private and(): Filter {
    const items = [this.unary()];
    while (this.isWord("and")) {
      this.next();
      items.push(this.unary());
    }
    return items.length === 1 ? items[0]! : { kind: "and", items };
  }

  private unary(): Filter {
    if (++this.depth > MAX_DEPTH) this.fail(this.peek, `the expression nests deeper than ${MAX_DEPTH} levels`);
    try {
      if (this.isWord("not")) {
        this.next();
        return { kind: "not", item: this.unary() };
      }
      if (this.isPunct("(")) {
        this.next();
        const inner = this.or();
        this.expectPunct(")");
        return inner;
      }
      const token = this.peek;
      if (token.t === "ident" && FUNCTIONS.has(token.v.toLowerCase()) && this.isPunct("(", this.tokens[this.i + 1])) return this.call();
      return this.condition();
    } finally {
      this.depth--;
    }
  }

  private call(): Filter {
    const name = this.next() as Extract<Token, { t: "ident" }>;
    const op = NAMED_OPS.get(name.v.toLowerCase())!;
    this.expectPunct("(");
    const ref = this.field();
    let values: Literal[] = [];
    if (op !== "exists" && op !== "not_exists") {
      this.expectPunct(",");
      values = op === "hasAny" || op === "hasAll" ? this.list() : [this.value()];
    }
    this.expectPunct(")");
    return this.condition_(ref, op, values, name);
  }

  private condition(): Filter {
    const ref = this.field();
    const token = this.next();
    if (token.t === "punct" && CMP[token.v]) return this.condition_(ref, CMP[token.v]!, [this.value()], token);
    if (token.t !== "ident") this.fail(token, `expected an operator after the field but found ${this.describe(token)}`);
    let word = token.v.toLowerCase();
    let negate = false;
    if (word === "is") {
      const notToken = this.isWord("not") ? this.next() : undefined;
      const nullToken = this.next();
      if (!this.isWord("null", nullToken)) this.fail(nullToken, `expected NULL after IS but found ${this.describe(nullToken)}`);
      return this.condition_(ref, notToken ? "exists" : "not_exists", [], token);
    }
    if (word === "not") {
      negate = true;
      const after = this.next();
      if (after.t !== "ident") this.fail(after, `expected LIKE, ILIKE, REGEXP, CONTAINS, IN, BETWEEN or EXISTS after NOT but found ${this.describe(after)}`);
      word = after.v.toLowerCase();
    }
    let op = NAMED_OPS.get(word);
    if (!op) this.fail(token, `unknown operator '${token.v}'`);
    if (negate) {
      const negated = NEGATED[op];
      if (!negated) this.fail(token, `NOT cannot precede '${op}'`);
      op = negated;
    }
    switch (op) {
      case "exists":
      case "not_exists":
        return this.condition_(ref, op, [], token);
      case "in":
      case "not_in":
      case "hasAny":
      case "hasAll":
        return this.condition_(ref, op, this.list(), token);
      case "between":
      case "not_between": {
        const low = this.value();
        const and = this.next();
        if (!this.isWord("and", and)) this.fail(and, `expected AND between the bounds of BETWEEN but found ${this.describe(and)}`);
        return this.condition_(ref, op, [low, this.value()], token);
      }
      default:
        return this.condition_(ref, op, [this.value()], token);
    }
  }

  private field(): FieldRef & { at: number } {
    const token = this.next();
    if (token.t !== "ident") this.fail(token, `expected a field name but found ${this.describe(token)}`);
    const field = fieldOf(this.kind, token.v);
    if (!field) this.fail(token, `unknown field '${token.v}'`, false);
    if (this.isPunct("[")) {
      if (field.type !== "MAP") this.fail(this.peek, `field '${field.name}' is not a map: it has no keys`, false);
      this.next();
      const key = this.next();
      if (key.t !== "string") this.fail(key, `expected a quoted key but found ${this.describe(key)}`);
      this.expectPunct("]");
      return { field, key: key.v, at: token.at };
    }
    if (field.type === "MAP" && this.isPunct(".")) {
      const parts: string[] = [];
      while (this.isPunct(".")) {
        this.next();
        const part = this.next();
        if (part.t !== "ident" && part.t !== "number") this.fail(part, `expected a key name after '.' but found ${this.describe(part)}`);
        parts.push(String(part.v));
      }
      return { field, key: parts.join("."), at: token.at };
    }
    return { field, at: token.at };
  }

  private list(): Literal[] {
    const open = this.next();
    const close = this.isPunct("(", open) ? ")" : this.isPunct("[", open) ? "]" : this.fail(open, `expected a list in ( ) or [ ] but found ${this.describe(open)}`);
    const values = [this.value()];
    while (this.isPunct(",")) {
      this.next();
      values.push(this.value());
    }
    this.expectPunct(close);
    if (values.length > 1000) this.fail(open, "a list may hold at most 1000 values");
    return values;
  }

  private value(): Literal {
    const token = this.next();
    if (token.t === "string" || token.t === "number") return token.v;
    if (this.isWord("true", token)) return "true";
    if (this.isWord("false", token)) return "false";
    return this.fail(token, `expected a value (a quoted string or a number) but found ${this.describe(token)}`);
  }

  /** Checks the operator and the values against the field's type, and types the values. */
  private condition_(ref: FieldRef & { at: number }, op: Operator, raw: Literal[], at: Token): Filter {
    const { field } = ref;
    const type = field.type === "MAP" && ref.key === undefined ? undefined : field.type;
    const allowed = type === undefined ? ["exists", "not_exists"] : field.supported_operators;
    if (!allowed.includes(op)) {
      const what = field.type === "MAP" && ref.key === undefined ? `map field '${field.name}' without a key` : `field '${field.name}' (${field.type})`;
      this.fail(at, `operator '${op}' is not supported on ${what}; supported: ${allowed.join(", ")}`, false);
    }
    const values = raw.map((value) => {
      if (field.type === "INT" || field.type === "FLOAT") {
        const n = typeof value === "number" ? value : Number(value);
        if (!Number.isFinite(n) || (typeof value === "string" && value.trim() === "")) this.fail(at, `field '${field.name}' is ${field.type}: '${value}' is not a number`, false);
        if (field.type === "INT" && !Number.isInteger(n)) this.fail(at, `field '${field.name}' is INT: ${n} is not an integer`, false);
        // The engine's INT is a 64-bit integer: a literal beyond it would fail in the query, not here (a 500).
        if (field.type === "INT" && (n >= INT64_BOUND || n < -INT64_BOUND)) this.fail(at, `field '${field.name}' is INT: ${value} is beyond the 64-bit integer range`, false);
        return n;
      }
      const s = String(value);
      if (field.type === "TIMESTAMP" && !isTimestamp(s)) this.fail(at, `field '${field.name}' is a TIMESTAMP: '${s}' is not an ISO-8601 date-time`, false);
      if ((op === "regexp" || op === "not_regexp") && !validRegexp(s)) this.fail(at, `'${s}' is not a valid regular expression`, false);
      return s;
    });
    const { at: _, ...cleanRef } = ref;
    return { kind: "condition", ref: cleanRef, op, values };
  }
}

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
export const isTimestamp = (s: string) => ISO.test(s) && !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s));

function validRegexp(s: string): boolean {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}

/** 2^63: INT values lie in [-2^63, 2^63). */
const INT64_BOUND = 2 ** 63;

/** Parses a kind's search expression into its filter tree; an empty or absent expression filters nothing. */
export function parseExpression(kind: TelemetryKind, text: string | null | undefined): Filter | undefined {
  if (text === null || text === undefined || text.trim() === "") return undefined;
  if (text.length > MAX_LENGTH) throw new ExpressionError(MAX_LENGTH, `the expression is longer than ${MAX_LENGTH} characters`, true);
  return new Parser(tokenize(text), kind).parse();
}

/**
 * A dimension, measure or order field of an aggregation: a catalogue name, or a MAP field's key in the
 * expression's forms. Anything else is refused by the same ExpressionError.
 */
export function parseFieldRef(kind: TelemetryKind, text: string): FieldRef {
  const tokens = tokenize(text);
  const parser = new Parser(tokens, kind) as unknown as { field(): FieldRef & { at: number }; peek: Token };
  const ref = parser.field();
  if (parser.peek.t !== "end") throw new ExpressionError(parser.peek.at, `unexpected text after the field name`, true);
  const { at: _, ...clean } = ref;
  return clean;
}
