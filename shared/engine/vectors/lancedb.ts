/**
 * The embedded vector store (`npm start`, the tests, the benchmark): LanceDB in a directory, one table per library
 * index (the same name S3 Vectors gives the library's index), so deleting a library drops a table and a search of
 * several libraries searches each and merges. Attributes of any key live in typed key/value list columns the filter
 * compiler reads (shared/domain/vector-filter.ts).
 *
 * A small table is scanned (exact); from ANN_MIN_ROWS rows on, an HNSW graph over 8-bit scalar-quantized vectors
 * (LanceDB's IVF_HNSW_SQ with one partition) answers, re-ranked on the full vectors (docs/benchmarks.md §25 has the
 * figures and why not IVF_PQ). LanceDB is a native module: it is imported on first use and never
 * bundled into a Lambda function (infra/build.ts), where the store is S3 Vectors.
 */
import type * as Lance from "@lancedb/lancedb";
import type * as Arrow from "apache-arrow";
import { LANCE_ATTRIBUTE_COLUMNS, sqlString, toLanceWhere, type NormalFilter } from "../../domain/vector-filter.js";
import { BadRequest } from "../../domain/errors.js";
import type { Attributes, FilterScalar } from "../../schemas/vector-search.js";
import {
  checkChunks,
  chunkKey,
  libraryIndexName,
  searchLibraries,
  type ChunkVector,
  type VectorHit,
  type VectorQuery,
  type VectorStore,
} from "./store.js";

/** Rows from which a table gets an ANN index; below, an exact scan is fast enough (docs/benchmarks.md §25). */
export const ANN_MIN_ROWS = 5_000;
/** Rows written since the index was built, over which they are merged into it (they are scanned exactly meanwhile). */
const MAX_UNINDEXED_FRACTION = 0.2;
/** Small fragments (one per write) over which a table is compacted. */
const MAX_SMALL_FRAGMENTS = 32;
/** Versions older than this are removed when a table is optimized (a search still reading one has long finished). */
const KEEP_VERSIONS_MS = 60_000;
const optimize = (table: Lance.Table) => table.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_VERSIONS_MS) });
/**
 * The graph's shape and search breadth, chosen on the offline (feature-hashing) vectors, the hardest case for a
 * graph: near-orthogonal, with small gaps between the nearest and the rest (docs/benchmarks.md §25). The refine
 * factor re-ranks refine × k candidates on the full vectors.
 */
const HNSW = { m: 32, efConstruction: 300 } as const;
const EF_SEARCH = 1000;
const REFINE_FACTOR = 4;

const RESULT_COLUMNS = [
  "document_id",
  "chunk_index",
  "text",
  "document_name",
  "mime_type",
  "created_at",
  LANCE_ATTRIBUTE_COLUMNS.string.keys,
  LANCE_ATTRIBUTE_COLUMNS.string.values,
  LANCE_ATTRIBUTE_COLUMNS.number.keys,
  LANCE_ATTRIBUTE_COLUMNS.number.values,
  LANCE_ATTRIBUTE_COLUMNS.boolean.keys,
  LANCE_ATTRIBUTE_COLUMNS.boolean.values,
  "_distance",
];

type Modules = { lancedb: typeof Lance; arrow: typeof Arrow };
let modules: Promise<Modules> | undefined;
const load = (): Promise<Modules> =>
  (modules ??= Promise.all([import("@lancedb/lancedb"), import("apache-arrow")]).then(([lancedb, arrow]) => ({ lancedb, arrow })));

function tableSchema(arrow: typeof Arrow, dimension: number): Arrow.Schema {
  const list = (type: Arrow.DataType) => new arrow.List(new arrow.Field("item", type, true));
  const { Field, Utf8, Float64, Int32, Bool, FixedSizeList, Float32 } = arrow;
  const c = LANCE_ATTRIBUTE_COLUMNS;
  return new arrow.Schema([
    new Field("id", new Utf8(), false),
    new Field("document_id", new Utf8(), false),
    new Field("chunk_index", new Int32(), false),
    new Field("text", new Utf8(), false),
    new Field("document_name", new Utf8(), true),
    new Field("mime_type", new Utf8(), true),
    new Field("created_at", new Float64(), false),
    new Field(c.keys, list(new Utf8()), false),
    new Field(c.string.keys, list(new Utf8()), false),
    new Field(c.string.values, list(new Utf8()), false),
    new Field(c.number.keys, list(new Utf8()), false),
    new Field(c.number.values, list(new Float64()), false),
    new Field(c.boolean.keys, list(new Utf8()), false),
    new Field(c.boolean.values, list(new Bool()), false),
    new Field("vector", new FixedSizeList(dimension, new Field("item", new Float32(), true)), false),
  ]);
}

function toRow(chunk: ChunkVector): Record<string, unknown> {
  const attributes = Object.entries(chunk.attributes ?? {});
  const of = <T extends FilterScalar>(type: string) => attributes.filter(([, v]) => typeof v === type) as [string, T][];
  const strings = of<string>("string");
  const numbers = of<number>("number");
  const booleans = of<boolean>("boolean");
  const c = LANCE_ATTRIBUTE_COLUMNS;
  return {
    id: chunkKey(chunk.documentId, chunk.chunkIndex),
    document_id: chunk.documentId,
    chunk_index: chunk.chunkIndex,
    text: chunk.text,
    document_name: chunk.documentName ?? null,
    mime_type: chunk.mimeType ?? null,
    created_at: chunk.createdAt,
    [c.keys]: attributes.map(([k]) => k),
    [c.string.keys]: strings.map(([k]) => k),
    [c.string.values]: strings.map(([, v]) => v),
    [c.number.keys]: numbers.map(([k]) => k),
    [c.number.values]: numbers.map(([, v]) => v),
    [c.boolean.keys]: booleans.map(([k]) => k),
    [c.boolean.values]: booleans.map(([, v]) => v),
    vector: Array.from(chunk.vector),
  };
}

const listOf = <T>(value: unknown): T[] => (value == null ? [] : Array.from(value as Iterable<T>));

function toHit(libraryId: string, row: Record<string, unknown>): VectorHit {
  const c = LANCE_ATTRIBUTE_COLUMNS;
  const attributes: Attributes = {};
  for (const type of ["string", "number", "boolean"] as const) {
    const keys = listOf<string>(row[c[type].keys]);
    const values = listOf<FilterScalar>(row[c[type].values]);
    keys.forEach((k, i) => (attributes[k] = values[i]!));
  }
  return {
    libraryId,
    documentId: String(row.document_id),
    chunkIndex: Number(row.chunk_index),
    text: String(row.text),
    score: 1 - Number(row._distance),
    documentName: (row.document_name as string | null) ?? null,
    mimeType: (row.mime_type as string | null) ?? null,
    createdAt: Number(row.created_at),
    attributes,
  };
}

const isMissingTable = (error: unknown) => /not found|does not exist|was not found/i.test(String((error as Error)?.message ?? error));
const isExistingTable = (error: unknown) => /already exists/i.test(String((error as Error)?.message ?? error));
/** Lance's optimistic commit lost to another writer's (two creations of one table, a write beside a compaction). */
const isCommitConflict = (error: unknown) => /commit conflict|preempted by concurrent transaction/i.test(String((error as Error)?.message ?? error));
/** Attempts of one write that loses commit races; each waits a little longer, with jitter. */
const WRITE_ATTEMPTS = 6;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt * (0.5 + Math.random())));

export interface LanceDbStoreOptions {
  /** Rows from which a table gets an ANN index (the benchmark and the tests choose theirs). */
  annMinRows?: number;
}

export class LanceDbVectorStore implements VectorStore {
  readonly engine = "lancedb" as const;
  private connection: Promise<Lance.Connection> | undefined;
  private readonly tables = new Map<string, Lance.Table>();
  private readonly annMinRows: number;

  constructor(
    private readonly directory: string,
    options: LanceDbStoreOptions = {},
  ) {
    this.annMinRows = options.annMinRows ?? ANN_MIN_ROWS;
  }

  private db(): Promise<Lance.Connection> {
    // readConsistencyInterval 0: every read sees the other writers' latest commit (the pipeline writes in another
    // process or connection than the search that follows it).
    return (this.connection ??= load().then(({ lancedb }) => lancedb.connect(this.directory, { readConsistencyInterval: 0 })));
  }

  /**
   * A library's table, opened once per process (opening reads its manifest; with readConsistencyInterval 0 an open
   * table still sees later commits). A table dropped by another connection is forgotten on the first read that fails.
   */
  private async open(name: string): Promise<Lance.Table | undefined> {
    const cached = this.tables.get(name);
    if (cached) return cached;
    const db = await this.db();
    try {
      const table = await db.openTable(name);
      this.tables.set(name, table);
      return table;
    } catch (error) {
      if (isMissingTable(error)) return undefined;
      throw error;
    }
  }

  /** Opens the library's table, creating it if it is not there; two writers creating it at once both get it. */
  private async openOrCreate(name: string, dimension: number): Promise<Lance.Table> {
    const existing = await this.open(name);
    if (existing) return existing;
    const [{ arrow }, db] = await Promise.all([load(), this.db()]);
    try {
      const table = await db.createEmptyTable(name, tableSchema(arrow, dimension), { mode: "create", existOk: true });
      this.tables.set(name, table);
      return table;
    } catch (error) {
      // Another writer created it first: its creation's commit wins, ours reports the conflict.
      if (!isExistingTable(error) && !isCommitConflict(error)) throw error;
      const table = await this.open(name);
      if (!table) throw error;
      return table;
    }
  }

  async upsert(workspace: string, libraryId: string, chunks: readonly ChunkVector[]): Promise<void> {
    if (chunks.length === 0) return;
    const dimension = checkChunks(chunks);
    const name = libraryIndexName(workspace, libraryId);
    const rows = chunks.map(toRow);
    let dropped = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const table = await this.openOrCreate(name, dimension);
        const indexDimension = vectorDimension(await table.schema());
        if (indexDimension !== dimension) throw new BadRequest(`the library's vectors have ${indexDimension} dimensions, these ${dimension}`, "dimension_mismatch");
        await table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
        await this.maintain(table);
        return;
      } catch (error) {
        if (attempt >= WRITE_ATTEMPTS) throw error;
        if (isMissingTable(error) && !dropped) {
          // Another connection dropped the library (deleted it) since this process opened it: write to a new one.
          dropped = true;
          this.tables.delete(name);
        } else if (isCommitConflict(error)) await backoff(attempt);
        else throw error;
      }
    }
  }

  /**
   * Builds the ANN index when the table has grown to it, folds new rows into it, and compacts small writes. Upkeep
   * that loses a commit race to another writer is left to the next write: the rows are written already.
   */
  private async maintain(table: Lance.Table): Promise<void> {
    try {
      await this.upkeep(table);
    } catch (error) {
      if (!isCommitConflict(error)) throw error;
    }
  }

  private async upkeep(table: Lance.Table): Promise<void> {
    const { lancedb } = await load();
    const stats = await table.stats();
    const index = (await table.listIndices()).find((i) => i.columns.includes("vector"));
    if (!index) {
      if (stats.numRows >= this.annMinRows) {
        if (stats.fragmentStats.numSmallFragments > 1) await optimize(table);
        await table.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine", numPartitions: 1, ...HNSW }) });
      } else if (stats.fragmentStats.numSmallFragments > MAX_SMALL_FRAGMENTS) await optimize(table);
      return;
    }
    const indexStats = await table.indexStats(index.name);
    const unindexed = indexStats?.numUnindexedRows ?? 0;
    if (unindexed > MAX_UNINDEXED_FRACTION * (indexStats?.numIndexedRows ?? 0) || stats.fragmentStats.numSmallFragments > MAX_SMALL_FRAGMENTS) await optimize(table);
  }

  query(query: VectorQuery): Promise<VectorHit[]> {
    return searchLibraries(query, (libraryId, filter) => this.search(query, libraryId, filter));
  }

  private async search(query: VectorQuery, libraryId: string, filter: NormalFilter | undefined): Promise<VectorHit[]> {
    return this.withTable(libraryIndexName(query.workspace, libraryId), [], async (table) => {
      const dimension = vectorDimension(await table.schema());
      if (dimension !== query.vector.length) throw new BadRequest(`the library's vectors have ${dimension} dimensions, the query ${query.vector.length}`, "dimension_mismatch");
      let search = table
        .vectorSearch(Array.from(query.vector))
        .distanceType("cosine")
        .ef(EF_SEARCH)
        .refineFactor(REFINE_FACTOR)
        .select(RESULT_COLUMNS)
        .limit(query.topK);
      if (filter) search = search.where(toLanceWhere(filter));
      const rows = await search.toArray();
      return rows.map((row: Record<string, unknown>) => toHit(libraryId, row));
    });
  }

  /** Runs `fn` on a library's table; `absent` when it has none (or another connection dropped it). */
  private async withTable<T>(name: string, absent: T, fn: (table: Lance.Table) => Promise<T>): Promise<T> {
    const table = await this.open(name);
    if (!table) return absent;
    try {
      return await fn(table);
    } catch (error) {
      if (!isMissingTable(error)) throw error;
      this.tables.delete(name);
      return absent;
    }
  }

  async deleteDocument(workspace: string, libraryId: string, documentId: string): Promise<number> {
    const predicate = `document_id = ${sqlString(documentId)}`;
    return this.withTable(libraryIndexName(workspace, libraryId), 0, async (table) => {
      const count = await table.countRows(predicate);
      if (count > 0) await table.delete(predicate);
      return count;
    });
  }

  async deleteLibrary(workspace: string, libraryId: string): Promise<void> {
    const db = await this.db();
    const name = libraryIndexName(workspace, libraryId);
    this.tables.get(name)?.close();
    this.tables.delete(name);
    try {
      await db.dropTable(name);
    } catch (error) {
      if (!isMissingTable(error)) throw error;
    }
  }

  /** Rows in a library's index (the benchmark reports it; 0 when it has none). */
  async count(workspace: string, libraryId: string): Promise<number> {
    return this.withTable(libraryIndexName(workspace, libraryId), 0, (table) => table.countRows());
  }

  /** Whether a library's index has its ANN index yet. */
  async indexed(workspace: string, libraryId: string): Promise<boolean> {
    return this.withTable(libraryIndexName(workspace, libraryId), false, async (table) => (await table.listIndices()).some((i) => i.columns.includes("vector")));
  }

  close(): void {
    for (const table of this.tables.values()) table.close();
    this.tables.clear();
    void this.connection?.then((c) => c.close());
    this.connection = undefined;
  }
}

function vectorDimension(schema: Arrow.Schema): number {
  const field = schema.fields.find((f) => f.name === "vector");
  return (field?.type as Arrow.FixedSizeList | undefined)?.listSize ?? 0;
}
