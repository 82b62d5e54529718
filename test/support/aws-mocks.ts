import { S3Client } from "@aws-sdk/client-s3";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { mockClient, type AwsClientStub } from "aws-sdk-client-mock";
import { afterEach, beforeEach, vi } from "vitest";

export interface MockOptions {
  /** What every call a test did not set up answers (`{}`); without it such a call resolves to undefined. */
  resolves?: object;
}

function mocked<S extends AwsClientStub<DynamoDBDocumentClient> | AwsClientStub<S3Client>>(stub: S, options: MockOptions): S {
  beforeEach(() => {
    stub.reset();
    if (options.resolves) stub.resolves(options.resolves as never);
  });
  return stub;
}

/** The DynamoDB document client of this file's handlers, mocked, and reset before each test. */
export const mockDynamo = (options: MockOptions = {}): AwsClientStub<DynamoDBDocumentClient> => mocked(mockClient(DynamoDBDocumentClient), options);

/** The S3 client of this file's handlers, mocked, and reset before each test. */
export const mockS3 = (options: MockOptions = {}): AwsClientStub<S3Client> => mocked(mockClient(S3Client), options);

/** `Date` stands still at `now` (epoch milliseconds or an ISO string) in each test; timers stay real. */
export function freezeDate(now: number | string): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(typeof now === "string" ? new Date(now) : now);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
