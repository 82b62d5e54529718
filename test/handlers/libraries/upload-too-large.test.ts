/**
 * The Lambda route of POST /v1/libraries/{library_id}/documents past what it carries inline (4 MiB): a 413 that sends
 * the client to the deployment's URL (the streaming upload service, to 100 MiB), with nothing stored or recorded.
 */
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as uploadDocument } from "../../../functions/libraries/upload-document.js";
import { INLINE_UPLOAD_MAX_BYTES } from "../../../shared/services/files/files.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, invoke, multipartEvent } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aLibrary, documentBucket, libraryItems } from "../../support/library-items.js";

const executions = vi.hoisted(() => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));
vi.mock("../../../shared/engine/executions.js", () => executions);

const dynamo = mockDynamo();
const s3 = mockS3();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  documentBucket(s3);
});

const caller = aCaller();

describe("POST /v1/libraries/{library_id}/documents on the Lambda route", () => {
  it("answers 413 naming the deployment's URL for a document over 4 MiB, storing and recording nothing", async () => {
    const library = aLibrary(caller);
    tables.put("libraries", ...libraryItems(library, []));
    const content = Buffer.alloc(INLINE_UPLOAD_MAX_BYTES + 1, 0x61);

    const response = await invoke(
      uploadDocument,
      multipartEvent({ file: { filename: "big.txt", content, type: "text/plain" } }, { path: `/v1/libraries/${library.id}/documents`, pathParameters: { library_id: library.id }, caller }),
    );

    expect(response.statusCode).toBe(413);
    const body = JSON.parse(response.body);
    expect(body).toMatchObject({ object: "error", type: "invalid_request_error", code: "use_large_upload" });
    expect(body.message).toContain(`${content.length} bytes`);
    expect(body.message).toContain("deployment's URL");
    expect(body.message).toContain("100 MiB");
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(tables.items("libraries").filter((row) => /^(DOC|HASH)#/.test(String(row.sk)))).toEqual([]);
    expect(executions.startExecution).not.toHaveBeenCalled();
  });
});
