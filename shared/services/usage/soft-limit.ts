import type { Caller } from "../../domain/caller.js";
import { MICROS_PER_UNIT } from "../../domain/pricing.js";
import { afterAnswer } from "../../observability/after-answer.js";
import { SYSTEM_ORIGIN, withChangeOrigin } from "../../observability/change-origin.js";
import { logger } from "../../observability/logger.js";
import { recordAudit } from "../audit/record.js";
import { cachedWorkspace } from "../identity/workspace-cache.js";
import { priceList } from "./spend.js";

/**
 * A workspace's soft spend limit (docs/spend.md): no call is refused for it; the month's spend crossing it is an
 * event. Told by the month counter's ADD, which answers the spend after it: exactly one ADD takes the month from
 * below the limit to at or over it, so the event is written once a month without a read or a lock.
 */
export function softLimitCrossed(workspace: Pick<Caller, "organization" | "workspace">, month: string, beforeMicros: number, afterMicros: number): void {
  void afterAnswer("soft limit event", async () => {
    const soft = (await cachedWorkspace(workspace))?.spendLimit?.softValue;
    if (soft === undefined || soft === null) return;
    const limitMicros = soft * MICROS_PER_UNIT;
    if (!(beforeMicros < limitMicros && afterMicros >= limitMicros)) return;
    logger.warn("soft spend limit reached", { workspace: workspace.workspace, month, softLimit: soft, spent: afterMicros / MICROS_PER_UNIT });
    await withChangeOrigin(SYSTEM_ORIGIN, () =>
      recordAudit({
        organization: workspace.organization,
        workspace: workspace.workspace,
        operation: "spend.soft-limit-reached",
        targets: [{ type: "workspace", id: workspace.workspace }],
        after: { month, soft_limit: soft, spent: afterMicros / MICROS_PER_UNIT, currency: priceList.currency },
      }),
    );
  });
}
