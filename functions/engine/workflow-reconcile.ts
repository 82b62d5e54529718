import { task } from "../../shared/engine/task.js";
import { reconcile } from "../../shared/services/workflows/status.js";

/** A scheduled sweep (status change events are best effort): closes open runs whose execution is over. */
export const handler = task(async () => reconcile());
