import * as z from "zod";
import { ProviderConfigSchema } from "../schemas/model.js";
import type { InferenceProvider, ProviderConfig } from "./types.js";

/**
 * The providers of this deployment, by the names the catalog's models use. Their configuration (never
 * keys: those are named by environment variable) arrives as JSON in INFERENCE_PROVIDERS, which CDK and
 * the local stack take from the catalog file.
 */
export const PROVIDERS_ENV = "INFERENCE_PROVIDERS";

const Providers = z.record(z.string(), ProviderConfigSchema);

type Factory = (config: ProviderConfig) => InferenceProvider;
/**
 * Provider types registered by the modules that need them rather than imported here. Every model-calling
 * bundle carries what this file imports (esbuild inlines the dynamic imports), and Amazon Transcribe's
 * provider brings ~4 MB of WebAssembly audio decoders: the transcription service imports it, and it
 * registers itself, so only the transcription function ships them. Amazon Textract's client is the OCR route's alone,
 * the same way.
 */
const registered = new Map<ProviderConfig["type"], Factory>();

export function registerProviderFactory(type: ProviderConfig["type"], factory: Factory): void {
  registered.set(type, factory);
}
const instances = new Map<string, Promise<InferenceProvider>>();

function configOf(name: string) {
  const all = Providers.parse(JSON.parse(process.env[PROVIDERS_ENV] ?? "{}"));
  const config = all[name];
  if (!config) throw new Error(`No inference provider '${name}' is configured (${PROVIDERS_ENV})`);
  return config;
}

async function create(name: string): Promise<InferenceProvider> {
  const config = configOf(name);
  switch (config.type) {
    case "offline": {
      const { OfflineProvider } = await import("./providers/offline.js");
      return new OfflineProvider();
    }
    case "bedrock": {
      const { BedrockProvider } = await import("./providers/bedrock.js");
      return new BedrockProvider({ region: config.region });
    }
    case "amazon-transcribe":
    case "amazon-textract": {
      const factory = registered.get(config.type);
      if (!factory) throw new Error(`The ${config.type} provider '${name}' is only loaded by the ${config.type === "amazon-textract" ? "OCR" : "transcription"} route`);
      return factory(config);
    }
    case "amazon-polly": {
      const { AmazonPollyProvider } = await import("./providers/amazon-polly.js");
      return new AmazonPollyProvider({ region: config.region });
    }
    case "openai-compatible": {
      const { OpenAICompatibleProvider } = await import("./providers/openai-compatible.js");
      return new OpenAICompatibleProvider(config);
    }
  }
}

/** One instance per provider per process (clients and connections are reused across invocations). */
export function providerNamed(name: string): Promise<InferenceProvider> {
  let instance = instances.get(name);
  if (!instance) {
    instance = create(name);
    instances.set(name, instance);
    instance.catch(() => instances.delete(name));
  }
  return instance;
}
