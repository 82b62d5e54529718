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

/** A Bedrock Guardrail a deployment of the catalog names (its id or ARN), with the provider's region when it names one. */
export interface BedrockGuardrailUse {
  id: string;
  region?: string;
}

export interface InferenceSettings {
  env: Record<string, string>;
  /** Upstream ids of the catalog's deployments on a Bedrock provider, with the provider's region when it names one. */
  bedrockModels: BedrockModel[];
  /** The Bedrock Guardrails the catalog's deployments name (docs/routing.md, "Guardrails"). */
  bedrockGuardrails: BedrockGuardrailUse[];
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
  const bedrockGuardrails = new Map<string, BedrockGuardrailUse>();
  for (const { provider, upstream, guardrail } of catalog.models.flatMap(catalogDeployments)) {
    const config = catalog.providers[provider];
    if (config?.type !== "bedrock") continue;
    const region = config.region ? { region: config.region } : {};
    bedrockModels.set(`${config.region ?? ""} ${upstream}`, { id: upstream, ...region });
    if (guardrail) bedrockGuardrails.set(`${config.region ?? ""} ${guardrail.id}`, { id: guardrail.id, ...region });
  }
  return {
    env: providersEnv(catalog),
    bedrockModels: [...bedrockModels.values()],
    bedrockGuardrails: [...bedrockGuardrails.values()],
    keySecrets,
  };
}

/** Cross-region inference profiles are named with a geography prefix; the model id follows it. */
const PROFILE = /^(us|eu|apac|global|us-gov)\.(.+)$/;

/**
 * Invoke rights on exactly the catalog's Bedrock models (and the regions their inference profiles route to), and the
 * right to apply exactly the guardrails its deployments name (Converse with a guardrailConfig needs
 * bedrock:ApplyGuardrail on the guardrail).
 */
export function bedrockStatements(models: BedrockModel[], guardrails: BedrockGuardrailUse[] = []): iam.PolicyStatement[] {
  if (!models.length) return [];
  const { PARTITION, REGION: STACK_REGION, ACCOUNT_ID } = cdk.Aws;
  const resources = models.flatMap(({ id, region }) => {
    const REGION = region ?? STACK_REGION;
    const profile = PROFILE.exec(id);
    return profile
      ? [`arn:${PARTITION}:bedrock:${REGION}:${ACCOUNT_ID}:inference-profile/${id}`, `arn:${PARTITION}:bedrock:*::foundation-model/${profile[2]}`]
      : [`arn:${PARTITION}:bedrock:${REGION}::foundation-model/${id}`];
  });
  const invoke = new iam.PolicyStatement({ actions: ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"], resources });
  if (!guardrails.length) return [invoke];
  // An id names the guardrail in the deployment's region and the stack's account; an ARN names itself.
  const guardrailArns = guardrails.map(({ id, region }) => (id.startsWith("arn:") ? id : `arn:${PARTITION}:bedrock:${region ?? STACK_REGION}:${ACCOUNT_ID}:guardrail/${id}`));
  return [invoke, new iam.PolicyStatement({ actions: ["bedrock:ApplyGuardrail"], resources: guardrailArns })];
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
