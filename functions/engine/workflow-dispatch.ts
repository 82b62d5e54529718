import type { DispatchEvent } from "../../shared/domain/workflows/program/index.js";
import { task } from "../../shared/engine/task.js";
import { dispatch } from "../../shared/services/workflows/dispatch.js";

/** The one Lambda every Task of every workflow program invokes, with a task token (docs/workflows.md). */
export const handler = task((event: DispatchEvent) => dispatch(event));
