import { S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { mockClient, type AwsClientStub } from "aws-sdk-client-mock";
import { afterEach, beforeEach, vi } from "vitest";
import { forgetProcessCaches } from "../../shared/domain/process-cache.js";

export interface MockOptions {
  /** What every call a test did not set up answers (`{}`); without it such a call resolves to undefined. */
  resolves?: object;
}

function mocked<S extends AwsClientStub<DynamoDBDocumentClient> | AwsClientStub<S3Client>>(stub: S, options: MockOptions): S {
  beforeEach(() => {
    stub.reset();
    // Answers cached in the process came from the previous test's mocked tables.
    forgetProcessCaches();
    if (options.resolves) stub.resolves(options.resolves as never);
  });
  return stub;
}

/** The DynamoDB document client of this file's handlers, mocked, and reset before each test. */
export const mockDynamo = (options: MockOptions = {}): AwsClientStub<DynamoDBDocumentClient> => mocked(mockClient(DynamoDBDocumentClient), options);

/** The S3 client of this file's handlers, mocked, and reset before each test. */
export const mockS3 = (options: MockOptions = {}): AwsClientStub<S3Client> => mocked(mockClient(S3Client), options);

/** `Date` stands still at `now` (epoch milliseconds or an ISO string) in each test; timers stay real. Returns `now`. */
export function freezeDate<T extends number | string>(now: T): T {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(typeof now === "string" ? new Date(now) : now);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return now;
}

/**
 * Retries of conflicting DynamoDB writes wait a random backoff: with Math.random at 0 they do not wait,
 * so a test can count attempts. Every spy is restored after each test.
 */
export function withoutRetryBackoff(): void {
  beforeEach(() => {
    vi.spyOn(Math, "random").mockReturnValue(0);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
}
