import { inject } from "vitest";
import { installLambdaStreaming } from "../../infra/local/lambda-streaming.js";

// Before any test module loads, so the SDK clients built at import see the embedded backends.
Object.assign(process.env, inject("backendEnv"));

// Streaming handlers wrap themselves with the Lambda runtime's awslambda global when they load.
installLambdaStreaming();
