import { expect } from "vitest";
import type { RegistryClient } from "./registry-client.js";

export interface ListedVersion {
  version: number;
  definition: Record<string, unknown>;
  aliases: string[];
}

/**
 * The invariants of a registry entry (prompt or skill) at rest: versions 1..latest without gap or
 * repeat, every alias on exactly one of them, and a read by alias agreeing with the list.
 */
export async function expectConsistent(registry: RegistryClient, id: string): Promise<{ versions: ListedVersion[]; aliasAt: Map<string, number> }> {
  const entry = (await registry.get(id)).body;
  const versions: ListedVersion[] = (await registry.versions(id)).body.data;
  expect(versions.map((v) => v.version)).toStrictEqual(Array.from({ length: entry.latestVersion }, (_, i) => i + 1));
  const aliasAt = new Map<string, number>();
  for (const version of versions) {
    for (const alias of version.aliases) {
      expect(aliasAt.has(alias), `alias ${alias} on two versions`).toBe(false);
      aliasAt.set(alias, version.version);
    }
  }
  for (const [alias, version] of aliasAt) expect((await registry.get(id, { alias })).body.version, alias).toBe(version);
  return { versions, aliasAt };
}
