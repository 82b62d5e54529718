/**
 * The upload service's size, for whoever prices or scales the deployment (infra/upload-service.ts builds it,
 * infra/cost-resources.ts prices it): one Fargate task of 0.5 vCPU and 1 GiB on arm64, scaled out on CPU up to
 * `maxCount`. A streamed upload holds one 8 MiB part (shared/blobs/files.ts), so 1 GiB takes dozens of uploads
 * at once. Kept apart from the stack so the cost model reads it without loading CDK.
 */
export const uploadServiceSize = { cpu: 512, memoryMiB: 1024, desiredCount: 1, maxCount: 4, architecture: "ARM64", partMb: 8 } as const;
