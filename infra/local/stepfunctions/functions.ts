/**
 * Lambda functions run in this process: a handler module (functions/<handler>.ts, or wherever the
 * stand-in's `taskModule` says) is imported once and called with a Lambda context, and what it returns or
 * throws is turned into what Lambda would hand Step Functions.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Context } from "aws-lambda";
import { DEFAULT_MEMORY_MB } from "../../../functions/route-row.js";
import { lambdaError, StatesError } from "./model.js";

type Handler = (event: unknown, context: Context) => unknown;

export interface FunctionConfig {
  /** Module under functions/, without extension; it exports `handler`. */
  handler: string;
  functionName: string;
  arn: string;
  timeoutSeconds: number;
  memoryMb?: number;
}

export class LocalFunctions {
  private readonly modules = new Map<string, Promise<Handler>>();

  constructor(
    private readonly moduleFile: (handler: string) => string,
    private readonly log: (message: string) => void,
  ) {}

  /** The module's `handler`; Lambda's own errors for a missing module or export. */
  async load(handler: string): Promise<Handler> {
    const file = this.moduleFile(handler);
    if (!this.modules.has(file)) {
      // Not cached when missing, so a module written later loads.
      if (!existsSync(file)) throw new StatesError("Runtime.ImportModuleError", `Error: Cannot find module '${file}'`);
      const loading = import(pathToFileURL(file).href).then((m: { handler?: Handler }) => {
        if (typeof m.handler !== "function") throw new StatesError("Runtime.HandlerNotFound", `${file} does not export handler`);
        return m.handler;
      });
      this.modules.set(file, loading);
      loading.catch(() => this.modules.delete(file));
    }
    return this.modules.get(file)!;
  }

  /**
   * Invokes the function as Lambda does (RequestResponse): its result as JSON, or its error as Lambda reports
   * it; a failure is logged (as Lambda would) under `label`.
   */
  async invoke(config: FunctionConfig, payload: unknown, label: string): Promise<unknown> {
    try {
      const handler = await this.load(config.handler);
      const output = await handler(structuredClone(payload), lambdaContext(config));
      // What Lambda hands back is JSON: undefined becomes null, class instances plain objects.
      return JSON.parse(JSON.stringify(output ?? null)) as unknown;
    } catch (error) {
      const failure = lambdaError(error);
      this.log(`local step functions: ${label} (${config.handler}) failed: ${failure.name}: ${(error as Error)?.message ?? error}`);
      throw failure;
    }
  }
}

export function lambdaContext(config: FunctionConfig): Context {
  const deadline = Date.now() + config.timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: config.functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: config.arn,
    memoryLimitInMB: String(config.memoryMb ?? DEFAULT_MEMORY_MB),
    awsRequestId: randomUUID(),
    logGroupName: "local",
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
