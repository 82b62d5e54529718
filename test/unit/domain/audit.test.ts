import { describe, expect, it } from "vitest";
import { auditValues, changed, matchesAudit } from "../../../shared/domain/audit.js";
import { anAuditEvent } from "../../support/audit-items.js";

describe("auditValues", () => {
  it("drops secret-named fields at any depth: secrets, tokens, keys, hashes, passwords, credentials, headers", () => {
    const values = auditValues({
      name: "ci",
      key: "sk-live",
      api_key: "x",
      hash: "h",
      nested: { client_secret: "s", bearer_token: "t", password: "p", headers: { Authorization: "Bearer t" }, kept: 1, credentials: { a: 1 } },
      list: [{ accessToken: "t", id: "k1" }],
    });

    expect(values).toStrictEqual({ name: "ci", nested: { kept: 1 }, list: [{ id: "k1" }] });
  });

  it("keeps a spend limit's value and the names of secret headers, cuts long strings and bounds depth", () => {
    const values = auditValues({ spend_limit: { value: 10 }, header_names: ["X-Api-Key"], description: "d".repeat(600), a: { b: { c: { d: { e: 1 } } } } });

    expect(values).toStrictEqual({ spend_limit: { value: 10 }, header_names: ["X-Api-Key"], description: `${"d".repeat(512)}…`, a: { b: { c: { d: "[nested]" } } } });
  });

  it("keeps a key's token limits (counts of model tokens), and still drops a field named like a token", () => {
    expect(auditValues({ tokens_per_minute: 5000, tokens_per_day: 1, refresh_token: "r", tokens: "t" })).toStrictEqual({ tokens_per_minute: 5000, tokens_per_day: 1 });
  });

  it("answers null for no values", () => {
    expect(auditValues(undefined)).toBeNull();
    expect(auditValues(null)).toBeNull();
  });
});

describe("changed", () => {
  it("keeps only the fields that differ, on both sides", () => {
    expect(changed({ name: "a", icon: null, roles: ["x"] }, { name: "b", icon: null, roles: ["x"] })).toStrictEqual({ before: { name: "a" }, after: { name: "b" } });
  });
});

describe("matchesAudit", () => {
  it("matches the actor by principal or key, a target by any of its ids, and an inclusive time range", () => {
    const event = anAuditEvent({ at: "2026-11-20T10:00:00.000Z" });

    expect(matchesAudit(event, { actor: event.actor.keyId })).toBe(true);
    expect(matchesAudit(event, { actor: event.actor.id, target: event.targets[0]!.id, since: event.at, until: event.at })).toBe(true);
    expect(matchesAudit(event, { actor: "someone-else" })).toBe(false);
    expect(matchesAudit(event, { since: "2026-11-20T10:00:00.001Z" })).toBe(false);
  });
});
