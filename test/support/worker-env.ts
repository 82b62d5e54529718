import { inject } from "vitest";

// Before any test module loads, so the SDK clients built at import see the embedded backends.
Object.assign(process.env, inject("backendEnv"));
