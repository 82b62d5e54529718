/**
 * The upload service's size, for whoever prices or scales the deployment (infra/upload-service.ts builds it,
 * infra/cost-resources.ts prices it): one Fargate task of 0.25 vCPU and 512 MiB on arm64 (Fargate's smallest), always
 * on, scaled out on CPU up to `maxCount` (decision 0066). A streamed upload holds one 8 MiB part in memory
 * (shared/blobs/files.ts), about 40 MiB at its peak with garbage (docs/benchmarks.md §15): 512 MiB takes about ten
 * at once beside Node's own. Kept apart from the stack so the cost model reads it without loading CDK.
 */
export const uploadServiceSize = { cpu: 256, memoryMiB: 512, desiredCount: 1, maxCount: 4, architecture: "ARM64", partMb: 8 } as const;
