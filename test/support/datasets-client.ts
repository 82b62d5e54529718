import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type ApiReply } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** A CreateDatasetRequest (name 5..50 characters). */
export const aDatasetBody = (overrides: Record<string, unknown> = {}) => ({ name: "support answers", description: "Conversations to judge", ...overrides });

/** A conversation payload: a user question and the assistant's answer. */
export const aConversation = (question = "What is the capital of France?", answer = "Paris.") => ({
  messages: [
    { role: "user", content: question },
    { role: "assistant", content: answer },
  ],
});

/** `/v1/observability/datasets…` and `/v1/observability/dataset-records…` of one running server as one tenant sees them, over plain HTTP. */
export function datasetsClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const must = (reply: ApiReply, status: number, what: string): any => {
    if (reply.status !== status) throw new Error(`${what} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const client = {
    request,
    create: (body: unknown = aDatasetBody()) => request("POST", "/v1/observability/datasets", { json: body }),
    list: (query: Record<string, string | number> = {}) => request("GET", "/v1/observability/datasets", { query }),
    get: (id: string) => request("GET", `/v1/observability/datasets/${id}`),
    update: (id: string, body: unknown) => request("PATCH", `/v1/observability/datasets/${id}`, { json: body }),
    remove: (id: string) => request("DELETE", `/v1/observability/datasets/${id}`),
    createRecord: (datasetId: string, body: unknown) => request("POST", `/v1/observability/datasets/${datasetId}/records`, { json: body }),
    listRecords: (datasetId: string, query: Record<string, string | number> = {}) => request("GET", `/v1/observability/datasets/${datasetId}/records`, { query }),
    fromSpans: (datasetId: string, spans: { trace_id: string; span_id: string }[]) => request("POST", `/v1/observability/datasets/${datasetId}/records/from-spans`, { json: { spans } }),
    getRecord: (id: string) => request("GET", `/v1/observability/dataset-records/${id}`),
    removeRecord: (id: string) => request("DELETE", `/v1/observability/dataset-records/${id}`),
    bulkDelete: (ids: string[]) => request("POST", "/v1/observability/dataset-records/bulk-delete", { json: { dataset_record_ids: ids } }),
    putPayload: (id: string, payload: unknown) => request("PUT", `/v1/observability/dataset-records/${id}/payload`, { json: { payload } }),
    putProperties: (id: string, properties: unknown) => request("PUT", `/v1/observability/dataset-records/${id}/properties`, { json: { properties } }),
    importFromFile: (datasetId: string, fileId: string) => request("POST", `/v1/observability/datasets/${datasetId}/imports/from-file`, { json: { file_id: fileId } }),
    importFromDataset: (datasetId: string, recordIds: string[]) => request("POST", `/v1/observability/datasets/${datasetId}/imports/from-dataset`, { json: { dataset_record_ids: recordIds } }),
    importFromPlayground: (datasetId: string, conversationIds: string[]) =>
      request("POST", `/v1/observability/datasets/${datasetId}/imports/from-playground`, { json: { conversation_ids: conversationIds } }),
    exportToJsonl: (datasetId: string) => request("GET", `/v1/observability/datasets/${datasetId}/exports/to-jsonl`),
    listTasks: (datasetId: string, query: Record<string, string | number> = {}) => request("GET", `/v1/observability/datasets/${datasetId}/tasks`, { query }),
    getTask: (datasetId: string, taskId: string) => request("GET", `/v1/observability/datasets/${datasetId}/tasks/${taskId}`),
    /** Polls the task until it is no longer RUNNING (10 s at most) and returns it. */
    settled: async (datasetId: string, taskId: string): Promise<any> => {
      for (let i = 0; i < 200; i += 1) {
        const task = must(await client.getTask(datasetId, taskId), 200, "get import task");
        if (task.status !== "RUNNING") return task;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`import task ${taskId} still RUNNING after 10 s`);
    },
    /** Imports the file into the dataset and returns the task once it has settled. */
    importedFromFile: async (datasetId: string, fileId: string): Promise<any> => client.settled(datasetId, must(await client.importFromFile(datasetId, fileId), 202, "import from file").id),
    judge: (id: string, judgeDefinition: unknown) => request("POST", `/v1/observability/dataset-records/${id}/live-judging`, { json: { judge_definition: judgeDefinition } }),
    /** Creates and returns a dataset, failing the test on anything but a 201. */
    created: async (body: unknown = aDatasetBody()): Promise<any> => must(await client.create(body), 201, "create dataset"),
    /** Creates and returns a record (in a new dataset unless one is named), failing the test on anything but a 201. */
    createdRecord: async (payload: unknown = aConversation(), datasetId?: string, properties?: unknown): Promise<any> =>
      must(await client.createRecord(datasetId ?? (await client.created()).id, { payload, ...(properties ? { properties } : {}) }), 201, "create record"),
  };
  return client;
}
