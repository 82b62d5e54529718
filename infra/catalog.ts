import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PROVIDERS_ENV } from "../shared/inference/registry.js";
import { CatalogFile, catalogDeployments } from "../shared/schemas/model.js";

export const ROOT = resolve(import.meta.dirname, "..");

/** The catalog npm start and the tests use; deployments default to config/models.aws.json (CDK context `modelCatalog`). */
export const LOCAL_CATALOG = "config/models.offline.json";
export const CLOUD_CATALOG = "config/models.aws.json";

/** Reads and checks a catalog file; a path is taken relative to the project root. */
export function readCatalog(path: string): CatalogFile {
  const file = resolve(ROOT, path);
  const parsed = CatalogFile.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a valid model catalog:\n${parsed.error.message}`);
  const ids = new Set(parsed.data.models.map((m) => m.id));
  for (const model of parsed.data.models) {
    for (const { provider, guardrail } of catalogDeployments(model)) {
      if (!parsed.data.providers[provider]) throw new Error(`${file}: model ${model.id} names provider '${provider}', which is not defined`);
      if (guardrail && parsed.data.providers[provider].type !== "bedrock") throw new Error(`${file}: model ${model.id} gives a guardrail to its deployment on '${provider}', which is not a Bedrock provider`);
    }
    const unknown = model.fallbacks?.find((name) => !ids.has(name));
    if (unknown) throw new Error(`${file}: model ${model.id} falls back to '${unknown}', which is not a model of the catalog`);
  }
  return parsed.data;
}

/** What functions need to reach the catalog's providers (their settings, never their keys). */
export const providersEnv = (catalog: CatalogFile): Record<string, string> => ({ [PROVIDERS_ENV]: JSON.stringify(catalog.providers) });

export const usesOfflineModels = (catalog: CatalogFile): boolean => Object.values(catalog.providers).some((p) => p.type === "offline");
