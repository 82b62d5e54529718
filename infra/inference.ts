import * as cdk from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import type { Construct } from "constructs";
import { catalogDeployments } from "../shared/schemas/model.js";
import { CLOUD_CATALOG, providersEnv, readCatalog } from "./catalog.js";

/** What model-calling functions get from the catalog file: provider settings, Bedrock rights, upstream keys. */
export interface BedrockModel {
  id: string;
  /** The Bedrock provider's region; the stack's own when it names none. */
  region?: string;
}

export interface InferenceSettings {
  env: Record<string, string>;
  /** Upstream ids of the catalog's deployments on a Bedrock provider, with the provider's region when it names one. */
  bedrockModels: BedrockModel[];
  /** Env var name → Secrets Manager secret name, for the keys of openai-compatible providers. */
  keySecrets: Record<string, string>;
}

/**
 * Context: `modelCatalog` (default config/models.aws.json) and `upstreamKeySecrets`, a JSON object
 * mapping a provider's `apiKeyEnv` to a Secrets Manager secret name, e.g. {"MISTRAL_API_KEY":"platform/mistral"}.
 */
export function inferenceSettings(scope: Construct): InferenceSettings {
  const catalog = readCatalog(String(scope.node.tryGetContext("modelCatalog") ?? CLOUD_CATALOG));
  const raw = scope.node.tryGetContext("upstreamKeySecrets") ?? {};
  const keySecrets = (typeof raw === "string" ? JSON.parse(raw) : raw) as Record<string, string>;
  const bedrockModels = new Map<string, BedrockModel>();
  for (const { provider, upstream } of catalog.models.flatMap(catalogDeployments)) {
    const config = catalog.providers[provider];
    if (config?.type !== "bedrock") continue;
    bedrockModels.set(`${config.region ?? ""} ${upstream}`, { id: upstream, ...(config.region ? { region: config.region } : {}) });
  }
  return {
    env: providersEnv(catalog),
    bedrockModels: [...bedrockModels.values()],
    keySecrets,
  };
}

/** Cross-region inference profiles are named with a geography prefix; the model id follows it. */
const PROFILE = /^(us|eu|apac|global|us-gov)\.(.+)$/;

/** Invoke rights on exactly the catalog's Bedrock models (and the regions their inference profiles route to). */
export function bedrockStatements(models: BedrockModel[]): iam.PolicyStatement[] {
  if (!models.length) return [];
  const { PARTITION, REGION: STACK_REGION, ACCOUNT_ID } = cdk.Aws;
  const resources = models.flatMap(({ id, region }) => {
    const REGION = region ?? STACK_REGION;
    const profile = PROFILE.exec(id);
    return profile
      ? [`arn:${PARTITION}:bedrock:${REGION}:${ACCOUNT_ID}:inference-profile/${id}`, `arn:${PARTITION}:bedrock:*::foundation-model/${profile[2]}`]
      : [`arn:${PARTITION}:bedrock:${REGION}::foundation-model/${id}`];
  });
  return [new iam.PolicyStatement({ actions: ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"], resources })];
}

/**
 * Upstream API keys as environment variables, resolved by CloudFormation from Secrets Manager at deploy
 * time (a dynamic reference: the template holds the secret's name, not its value).
 */
export function keyEnvironment(settings: InferenceSettings): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings.keySecrets).map(([envName, secretName]) => [envName, cdk.SecretValue.secretsManager(secretName).unsafeUnwrap()]),
  );
}
