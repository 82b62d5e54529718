import * as z from "zod";

/** `GET /health`: the deployment answers. Nothing else (no version, no tenant, no dependency's state). */
export const HealthOut = z.object({ status: z.literal("ok").describe("Always `ok` when the API answers at all") }).describe("Health");
