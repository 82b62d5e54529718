import { describe, expect, it } from "vitest";
import { InvalidPageToken, Unprocessable } from "../../../shared/domain/errors.js";
import { allows } from "../../../shared/domain/registry/access.js";
import { decodePageToken, encodePageToken } from "../../../shared/store/registry-paging.js";
import { placeholdersOf, withVariables } from "../../../shared/domain/registry/prompt-variables.js";
import { textKey } from "../../../shared/store/registry.js";
import { aCaller } from "../../support/builders.js";
import { aRegistryHead } from "../../support/registry-builders.js";

describe("prompt placeholders", () => {
  it("finds each variable once, in order of first use, spaces inside the braces allowed", () => {
    expect(placeholdersOf("{{b}} and {{ a }} and {{b}} and {{user.name}}")).toStrictEqual(["b", "a", "user.name"]);
  });

  it("ignores what is not a placeholder", () => {
    expect(placeholdersOf("{b} {{}} {{1x}} {{a b}} {{{c}}}")).toStrictEqual(["c"]);
  });

  it("derives variables when none are declared", () => {
    expect(withVariables({ content: "{{x}}{{y}}" })).toStrictEqual({ content: "{{x}}{{y}}", variables: [{ name: "x" }, { name: "y" }] });
  });

  it("keeps declared variables that match, in their order", () => {
    expect(withVariables({ content: "{{x}}{{y}}", variables: [{ name: "y" }, { name: "x" }] }).variables).toStrictEqual([{ name: "y" }, { name: "x" }]);
  });

  it("refuses declared variables that do not match the placeholders", () => {
    expect(() => withVariables({ content: "{{x}}", variables: [] })).toThrow(Unprocessable);
    expect(() => withVariables({ content: "", variables: [{ name: "x" }] })).toThrow(/declared but not used in content: x/);
  });
});

describe("page tokens", () => {
  const sort = { field: "name", direction: "asc" } as const;

  it("round-trip the position for the same sort order", () => {
    const cursor = { sk: "HEAD#id", key: "alpha\u0001id" };
    expect(decodePageToken(encodePageToken(sort, cursor), sort)).toStrictEqual(cursor);
  });

  it("are base64url of the position and the order only: the partition (kind, workspace) comes from the caller", () => {
    const token = encodePageToken(sort, { sk: "HEAD#id", key: "k" });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(token, "base64url").toString())).toStrictEqual({ v: 1, f: "name", d: "asc", sk: "HEAD#id", k: "k" });
  });

  it.each([
    ["garbage", "???"],
    ["another sort", encodePageToken({ field: "name", direction: "desc" }, { sk: "HEAD#id", key: "k" })],
    ["a foreign sort key", Buffer.from(JSON.stringify({ v: 1, f: "name", d: "asc", sk: "V#0000000001", k: "k" })).toString("base64url")],
  ])("are refused with the one 422 of every cursor-paged list for %s", (_, token) => {
    expect(() => decodePageToken(token, sort)).toThrow(InvalidPageToken);
  });
});

describe("text sort keys", () => {
  it("order case-insensitively, a prefix before its extensions", () => {
    const keys = ["ab!", "AB", "a", "b"].map((name) => textKey(name, "id"));
    expect([...keys].sort()).toStrictEqual([textKey("a", "id"), textKey("AB", "id"), textKey("ab!", "id"), textKey("b", "id")]);
  });

  it("stop at 200 characters, whole code points, before the id", () => {
    const key = textKey("😀".repeat(300), "id");
    expect(Array.from(key.split("\u0001")[0]!)).toHaveLength(200);
    expect(key.endsWith("\u0001id")).toBe(true);
  });
});

describe("access to an entry", () => {
  const creator = aCaller();
  const member = aCaller({ workspace: creator.workspace, organization: creator.organization });

  it("gives the creator everything", () => {
    const head = aRegistryHead({ owner: creator.principal });
    for (const need of ["read", "edit", "own"] as const) expect(allows(head, creator, need)).toBe(true);
  });

  it("gives members nothing of a private entry", () => {
    const head = aRegistryHead({ owner: creator.principal });
    for (const need of ["read", "edit", "own"] as const) expect(allows(head, member, need)).toBe(false);
  });

  it.each([
    ["writer", true],
    ["reader", false],
  ] as const)("lets members read a workspace entry shared as %s, edit it: %s, never own it", (relation, edit) => {
    const head = aRegistryHead({ owner: creator.principal, sharingScope: "workspace", workspaceRelation: relation });
    expect([allows(head, member, "read"), allows(head, member, "edit"), allows(head, member, "own")]).toStrictEqual([true, edit, false]);
  });
});
