/**
 * The DynamoDB tables, described once. CDK builds them from this (infra/data-stack.ts) and the local
 * stack creates the same tables in DynamoDB Local (infra/local/dynamodb.ts).
 */
export interface KeyAttribute {
  name: string;
  type: "S" | "N";
}

export interface TableDefinition {
  /** Logical name: the env var `TABLE_<NAME>` carries the physical name to the functions. */
  name: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  globalIndexes?: { name: string; partitionKey: KeyAttribute; sortKey?: KeyAttribute }[];
  localIndexes?: { name: string; sortKey: KeyAttribute }[];
  /** Attribute holding a unix-seconds expiry that DynamoDB TTL acts on. */
  timeToLive?: string;
}

/** Organizations, workspaces, principals, API keys and system secrets (see docs/data-model.md). */
export const tenancyTable = {
  name: "tenancy",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  globalIndexes: [{ name: "gsi1", partitionKey: { name: "gsi1pk", type: "S" }, sortKey: { name: "gsi1sk", type: "S" } }],
} as const satisfies TableDefinition;

/** File records and pending large uploads, partitioned by workspace. */
export const filesTable = {
  name: "files",
  partitionKey: { name: "workspace", type: "S" },
  sortKey: { name: "sk", type: "S" },
  // Local indexes keep lists and totals strongly consistent with the upload that precedes them.
  localIndexes: [
    { name: "byCreated", sortKey: { name: "createdKey", type: "S" } },
    // Sparse: only files that expire, so the total can count them live without reading the rest.
    { name: "byExpiry", sortKey: { name: "expiresAt", type: "N" } },
  ],
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * The model catalog: base models under scope `BASE` (seeded from the catalog file), fine-tuned models
 * under their workspace (`WS#<id>`); aliases are pointer items (`ALIAS#<alias>`) in the same scope.
 */
export const modelsTable = {
  name: "models",
  partitionKey: { name: "scope", type: "S" },
  sortKey: { name: "sk", type: "S" },
} as const satisfies TableDefinition;

/** One record per model call, per workspace, newest last; kept for 400 days. */
export const usageTable = {
  name: "usage",
  partitionKey: { name: "workspace", type: "S" },
  sortKey: { name: "sk", type: "S" },
  timeToLive: "ttl",
} as const satisfies TableDefinition;

// Agents table (definition here)
/**
 * Agents (docs/agents.md). Heads live in one partition per workspace (`WS#<workspace>`, sort
 * `AGENT#<id>`), versions and aliases in one partition per agent (`WS#<workspace>#AGENT#<id>`), so only
 * heads carry `createdKey` and the local index lists a workspace's agents by creation without a Scan.
 */
export const agentsTable = {
  name: "agents",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  // Strongly consistent: a list right after a create sees it.
  localIndexes: [{ name: "byCreated", sortKey: { name: "createdKey", type: "S" } }],
} as const satisfies TableDefinition;

// Prompts and skills registry table (definition here)
/**
 * Prompts and skills (docs/registries.md). Heads live in one partition per workspace and kind
 * (`<kind>#<workspace>`), versions in one partition per entry (`<kind>#<workspace>#<id>`), so only heads
 * carry the sort attributes: the local indexes hold heads alone and list in any order without a Scan.
 */
export const registryTable = {
  name: "registry",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  // Local indexes read strongly consistent: a list right after a create or a rename sees it.
  localIndexes: [
    { name: "byCreated", sortKey: { name: "createdKey", type: "S" } },
    { name: "byModified", sortKey: { name: "modifiedKey", type: "S" } },
    { name: "byName", sortKey: { name: "nameKey", type: "S" } },
    { name: "byTitle", sortKey: { name: "titleKey", type: "S" } },
  ],
} as const satisfies TableDefinition;

/**
 * Batch jobs, by workspace; `byCreated` serves the lists. Jobs not yet final also carry `activeKey`, so
 * the sparse `active` index finds every unfinished job (the local engine's restart recovery).
 */
export const batchTable = {
  name: "batch",
  partitionKey: { name: "workspace", type: "S" },
  sortKey: { name: "sk", type: "S" },
  localIndexes: [{ name: "byCreated", sortKey: { name: "createdKey", type: "S" } }],
  globalIndexes: [{ name: "active", partitionKey: { name: "activeKey", type: "S" }, sortKey: { name: "createdKey", type: "S" } }],
} as const satisfies TableDefinition;

/**
 * Per-key request counters, one item per key and minute, gone after two minutes (per-key rate limits); and, in the
 * `BREAKERS` partition, the model deployments cooling down (shared/store/breakers.ts).
 */
export const BREAKERS_PARTITION = "BREAKERS";

export const ratesTable = {
  name: "rates",
  partitionKey: { name: "key", type: "S" },
  sortKey: { name: "window", type: "S" },
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * Workflow definitions and where they run (docs/workflows.md): workflows, their names, registrations,
 * published program versions, deployments and their workers, by workspace.
 */
export const workflowsTable = {
  name: "workflows",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  localIndexes: [
    { name: "byCreated", sortKey: { name: "createdKey", type: "S" } },
    { name: "byName", sortKey: { name: "nameKey", type: "S" } },
  ],
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * What workflows do (docs/workflows.md): executions and their runs, activity tasks, the event log per
 * root execution, published state. Runs carry the sort keys of the local indexes (lists and metrics);
 * pending tasks carry `queueKey` (the `queue` index a worker polls); events carry `eventsKey` (the
 * workspace-wide event listing); open runs carry `openKey` (the reconciler's `openRuns` index); schedules
 * (`SCHED#<id>`) carry `dueKey` while armed (the schedule sweeper's `dueSchedules` index).
 */
export const executionsTable = {
  name: "executions",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  localIndexes: [
    { name: "byStart", sortKey: { name: "startKey", type: "S" } },
    { name: "byEnd", sortKey: { name: "endKey", type: "S" } },
    { name: "byWorkflowStart", sortKey: { name: "workflowStartKey", type: "S" } },
  ],
  globalIndexes: [
    { name: "queue", partitionKey: { name: "queueKey", type: "S" }, sortKey: { name: "createdKey", type: "S" } },
    { name: "events", partitionKey: { name: "eventsKey", type: "S" }, sortKey: { name: "eventKey", type: "S" } },
    // Sparse: only open runs carry `openKey` (one of a few shards), so the reconciler finds runs whose status change went missing without a scan.
    { name: "openRuns", partitionKey: { name: "openKey", type: "S" }, sortKey: { name: "startKey", type: "S" } },
    // Sparse: only armed schedules carry `dueKey` (a few shards), by the time they fire: the schedule sweeper finds lost fires without a scan.
    { name: "dueSchedules", partitionKey: { name: "dueKey", type: "S" }, sortKey: { name: "dueAt", type: "S" } },
  ],
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * Retrieval registries (docs/retrieval.md): search-index deployments and ingestion pipeline
 * configurations, by workspace. An item's sort key is its kind and name (`DEPLOYMENT#<name>`,
 * `PIPELINE#<name>`), so a name is unique in its workspace and re-registering it is one atomic upsert;
 * `byId` finds an item by its id (`idKey`, `DEPLOYMENT#<id>` / `PIPELINE#<id>`), strongly consistent.
 */
export const retrievalTable = {
  name: "retrieval",
  partitionKey: { name: "workspace", type: "S" },
  sortKey: { name: "sk", type: "S" },
  localIndexes: [{ name: "byId", sortKey: { name: "idKey", type: "S" } }],
} as const satisfies TableDefinition;

/**
 * Audio (docs/audio.md): a workspace's custom voices, keyed `VOICE#<id>`; their samples are objects of
 * the files bucket (`workspaces/<workspace>/voices/<id>.wav`). `byCreated` (`VOICE#<created>#<id>`, on
 * voices only) lists them oldest first, strongly consistent.
 */
export const audioTable = {
  name: "audio",
  partitionKey: { name: "workspace", type: "S" },
  sortKey: { name: "sk", type: "S" },
  localIndexes: [{ name: "byCreated", sortKey: { name: "createdKey", type: "S" } }],
} as const satisfies TableDefinition;

/**
 * Connectors (docs/connectors.md, decision 30): connectors and their name pointers in one partition per
 * organization (`ORG#<org>`; sorts `C#<id>`, `NAME#<name>`), so sharing to the organization moves no item;
 * `byCreated` (`createdKey`, on connectors only) pages them oldest first, strongly consistent. Connections
 * (activations, encrypted credentials) live in one partition per connector (`CONN#<id>`), pending OAuth
 * authorizations under `OAUTH#<state>` until `ttl`.
 */
export const connectorsTable = {
  name: "connectors",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  localIndexes: [{ name: "byCreated", sortKey: { name: "createdKey", type: "S" } }],
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * Point reads of telemetry (docs/observability/ingest.md): spans by trace, so a trace, its spans and one span are
 * read without the analytical engine. Items expire with the workspace's telemetry retention.
 */
export const telemetryTable = {
  name: "telemetry",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * Observability datasets and their records (docs/observability/datasets.md, decision 41), one partition per
 * workspace (`WS#<workspace>`; sorts `DS#<id>` for datasets, `REC#<id>` for records), so a record is read by its
 * id alone. `byParent` lists them: datasets under `<workspace>#DATASETS`, a dataset's records under
 * `<workspace>#DS#<id>`, oldest first (`createdKey`). A global index: no 10 GB cap on a workspace's records.
 * Saved judges sit in the same partition (`JUDGE#<id>`, their names' claims `JUDGENAME#<name>`; listed under
 * `<workspace>#JUDGES`; decision 61).
 */
export const datasetsTable = {
  name: "datasets",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  globalIndexes: [{ name: "byParent", partitionKey: { name: "parentKey", type: "S" }, sortKey: { name: "createdKey", type: "S" } }],
} as const satisfies TableDefinition;

/**
 * The audit log (docs/decisions/0044-audit-log.md): one item per privileged change, append-only, one partition
 * per organization (`ORG#<org>`), sorted by time (`<at>#<event id>`) so a reader's time range is the key
 * condition. Items expire after the retention setting (AUDIT_RETENTION_DAYS, default 400 days).
 */
export const auditTable = {
  name: "audit",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * The response cache (docs/routing.md, "Response cache"): model answers kept for a workspace that opted in, under a
 * hash of the request (`sk`), until their `ttl`.
 */
export const responsesTable = {
  name: "responses",
  partitionKey: { name: "workspace", type: "S" },
  sortKey: { name: "sk", type: "S" },
  timeToLive: "ttl",
} as const satisfies TableDefinition;

/**
 * Document libraries (docs/libraries.md, decision 68). A library's partition (`ORG#<org>#LIB#<id>`) holds its head
 * (`LIBRARY`), its accesses (`ACCESS#<User|Workspace|Org>#<id>`) and, later, its documents: deleting a library
 * empties one partition. Each access also has a grantee item in the partition of whom it names
 * (`ORG#<org>#GRANTEE#<type>#<id>`, sort `LIB#<id>`), carrying the library's `createdKey`: a caller's list is a
 * Query of `byCreated` in at most three partitions (its own principal, its workspace, its organization), never a Scan.
 */
export const librariesTable = {
  name: "libraries",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  // Strongly consistent: a list right after a create or a share sees it.
  localIndexes: [{ name: "byCreated", sortKey: { name: "createdKey", type: "S" } }],
} as const satisfies TableDefinition;

/**
 * Conversations (docs/conversations.md, decision 70): heads in one partition per workspace (`WS#<workspace>`, sort
 * `CONV#<id>`), entries in one partition per conversation (`WS#<workspace>#CONV#<id>`, sort `E#<sequence>`), so
 * only heads carry `createdKey` and the local index lists a workspace's conversations by creation without a Scan,
 * and a history is one Query in append order.
 */
export const conversationsTable = {
  name: "conversations",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  // Strongly consistent: a list right after a start sees it.
  localIndexes: [{ name: "byCreated", sortKey: { name: "createdKey", type: "S" } }],
} as const satisfies TableDefinition;

export const tables = [tenancyTable, filesTable, modelsTable, usageTable, batchTable, registryTable, agentsTable, ratesTable, workflowsTable, executionsTable, retrievalTable, audioTable, connectorsTable, telemetryTable, datasetsTable, auditTable, responsesTable, librariesTable, conversationsTable] as const;

export type TableName = (typeof tables)[number]["name"];

export const tableEnvVar = (name: TableName): string => `TABLE_${name.toUpperCase()}`;
