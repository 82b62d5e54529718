export type PrincipalType = "user" | "service_account";

/** Who is calling, as the authorizer resolved it from the API key. */
export interface Caller {
  organization: string;
  workspace: string;
  principal: string;
  principalType: PrincipalType;
  roles: string[];
  admin: boolean;
  keyId: string;
  /** Requests per minute this key may make, when its owner set a limit. */
  rateLimitPerMinute?: number;
  /** The models this key may call (ids or aliases), when its owner limited it to some (docs/routing.md, "Per-key limits"). */
  models?: string[];
  /** Tokens (prompt and completion) per minute and per day this key may use, when its owner set limits. */
  tokensPerMinute?: number;
  tokensPerDay?: number;
  /** What this key may spend in a month (the price list's currency), when its owner set a budget. */
  monthlyBudget?: number;
}
