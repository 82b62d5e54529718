import { Logger } from "@aws-lambda-powertools/logger";

/** Built once per process; every handler logs through it (level from POWERTOOLS_LOG_LEVEL). */
export const logger = new Logger({ serviceName: "platform-api" });
