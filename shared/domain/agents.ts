import type { AgentTool, CompletionArgs, RequestSource } from "../schemas/agent.js";
import type { GuardrailConfig } from "../schemas/guardrails.js";

/** The records of an agent: its head, its numbered versions and its aliases (docs/agents.md). */

/** What one version of an agent fixes. */
export interface AgentConfig {
  name: string;
  model: string;
  instructions: string | null;
  description: string | null;
  tools: AgentTool[];
  completion_args: CompletionArgs;
  guardrails: GuardrailConfig[] | null;
  handoffs: string[] | null;
  metadata: Record<string, unknown> | null;
  deployment_chat: boolean;
  version_message: string | null;
}

export const CONFIG_FIELDS = [
  "name",
  "model",
  "instructions",
  "description",
  "tools",
  "completion_args",
  "guardrails",
  "handoffs",
  "metadata",
  "deployment_chat",
  "version_message",
] as const satisfies readonly (keyof AgentConfig)[];

/** The agent as it is now: the current version's fields plus what belongs to the agent itself. */
export interface AgentHead extends AgentConfig {
  id: string;
  workspace: string;
  organization: string;
  ownerId: string;
  source: RequestSource;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  /** The current version. */
  version: number;
  /** The newest version; versions are 1..latestVersion, none is ever removed alone. */
  latestVersion: number;
}

export interface AgentVersion extends AgentConfig {
  id: string;
  version: number;
  /** When this version was written. */
  createdAt: string;
}

export interface AgentAlias {
  alias: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}
