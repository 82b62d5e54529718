export * from "./deployments.js";
export * from "./pipelines.js";
