/**
 * State machines and their published versions, as CreateStateMachine, UpdateStateMachine,
 * PublishStateMachineVersion, DescribeStateMachine and ListStateMachineVersions see them. The engine
 * table's machines are registered when the stand-in starts; those created at run time may be kept in a
 * JSON file so that after a restart the same ARNs exist again (their executions are not kept).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ApiError, page, seconds } from "./protocol.js";
import { LOCAL_ACCOUNT, localStateMachineArn, type Json } from "./model.js";

export interface VersionRecord {
  version: number;
  arn: string;
  definition: string;
  roleArn: string;
  revisionId: string;
  description?: string;
  creationDate: Date;
}

export interface MachineRecord {
  name: string;
  arn: string;
  definition: string;
  roleArn: string;
  revisionId: string;
  creationDate: Date;
  updateDate?: Date;
  versions: VersionRecord[];
  /** From the engine table: started with the stand-in, never written to the file. */
  deployed: boolean;
}

/** What an ARN names: a machine (its current definition) or one of its versions. */
export interface Target {
  machine: MachineRecord;
  version?: VersionRecord;
  definition: string;
}

/** Step Functions' rule for state machine and execution names. */
export const NAME = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;
const MACHINE_ARN = /^arn:aws:states:[^:]+:\d{12}:stateMachine:([^:]+)(?::(\d+))?$/;

interface Stored {
  machines: Array<Omit<MachineRecord, "creationDate" | "updateDate" | "versions" | "deployed"> & {
    creationDate: string;
    updateDate?: string;
    versions: Array<Omit<VersionRecord, "creationDate"> & { creationDate: string }>;
  }>;
}

export class MachineRegistry {
  private readonly machines = new Map<string, MachineRecord>();

  /**
   * @param validate throws an ApiError (InvalidDefinition) for a document the stand-in cannot run.
   * @param file where machines created at run time are kept, if anywhere.
   */
  constructor(
    private readonly validate: (name: string, definition: string) => void,
    private readonly file?: string,
  ) {
    if (file && existsSync(file)) this.load(file);
  }

  registerDeployed(name: string, document: Json): MachineRecord {
    const record: MachineRecord = {
      name,
      arn: localStateMachineArn(name),
      definition: JSON.stringify(document),
      roleArn: localRoleArn(name),
      revisionId: randomUUID(),
      creationDate: new Date(),
      versions: [],
      deployed: true,
    };
    this.machines.set(name, record);
    return record;
  }

  /** The machine or version an ARN names; StateMachineDoesNotExist otherwise. */
  resolve(arn: unknown): Target {
    const [, name, version] = (typeof arn === "string" && MACHINE_ARN.exec(arn)) || [];
    if (!name) throw new ApiError("InvalidArn", `Invalid Arn: '${String(arn)}'`);
    const machine = this.machines.get(name);
    const found = version === undefined ? undefined : machine?.versions.find((v) => v.version === Number(version));
    if (!machine || arn !== (found ?? machine).arn) throw new ApiError("StateMachineDoesNotExist", `State Machine Does Not Exist: '${String(arn)}'`);
    return { machine, version: found, definition: (found ?? machine).definition };
  }

  create(body: Json): Json {
    const name = body.name;
    if (typeof name !== "string" || !NAME.test(name)) throw new ApiError("InvalidName", `Invalid Name: '${String(name)}'`);
    if ((body.type ?? "STANDARD") !== "STANDARD") throw new ApiError("ValidationException", "The local Step Functions runs STANDARD state machines only");
    if (body.versionDescription !== undefined && !body.publish) throw new ApiError("ValidationException", "versionDescription requires publish");
    const roleArn = role(body.roleArn);
    let machine = this.machines.get(name);
    if (machine) {
      // The same name and definition again is the same call: Step Functions answers with the machine it has.
      if (typeof body.definition !== "string" || !sameDocument(machine.definition, body.definition)) {
        throw new ApiError("StateMachineAlreadyExists", `State Machine Already Exists: '${machine.arn}'`);
      }
    } else {
      const definition = this.checked(name, body.definition);
      machine = this.add({ name, arn: localStateMachineArn(name), definition, roleArn, revisionId: randomUUID(), creationDate: new Date(), versions: [], deployed: false });
    }
    const version = body.publish ? this.publishCurrent(machine, body.versionDescription) : undefined;
    this.save();
    return { stateMachineArn: machine.arn, creationDate: seconds(machine.creationDate), ...(version ? { stateMachineVersionArn: version.arn } : {}) };
  }

  update(body: Json): Json {
    const { machine, version } = this.resolve(body.stateMachineArn);
    if (version) throw new ApiError("ValidationException", "Update a state machine by its own ARN, not a version's");
    if (machine.deployed) throw new ApiError("ValidationException", `${machine.name} is deployed with the stack (functions/engine.ts); it changes there`);
    if (body.definition === undefined && body.roleArn === undefined) throw new ApiError("MissingRequiredParameter", "Either definition or roleArn is required");
    if (body.versionDescription !== undefined && !body.publish) throw new ApiError("ValidationException", "versionDescription requires publish");
    const definition = body.definition === undefined ? machine.definition : this.checked(machine.name, body.definition);
    const roleArn = body.roleArn === undefined ? machine.roleArn : role(body.roleArn);
    if (!sameDocument(definition, machine.definition) || roleArn !== machine.roleArn) {
      Object.assign(machine, { definition, roleArn, revisionId: randomUUID(), updateDate: new Date() });
    }
    const published = body.publish ? this.publishCurrent(machine, body.versionDescription) : undefined;
    this.save();
    return {
      updateDate: seconds(machine.updateDate ?? machine.creationDate),
      revisionId: machine.revisionId,
      ...(published ? { stateMachineVersionArn: published.arn } : {}),
    };
  }

  publish(body: Json): Json {
    const { machine, version } = this.resolve(body.stateMachineArn);
    if (version) throw new ApiError("ValidationException", "Publish a version of a state machine by its own ARN");
    if (machine.deployed) throw new ApiError("ValidationException", `${machine.name} is deployed with the stack; the local engine publishes no versions of it`);
    if (body.revisionId !== undefined && body.revisionId !== machine.revisionId) {
      throw new ApiError("ConflictException", `The state machine's revision is ${machine.revisionId}, not ${String(body.revisionId)}`);
    }
    const published = this.publishCurrent(machine, body.description);
    this.save();
    return { creationDate: seconds(published.creationDate), stateMachineVersionArn: published.arn };
  }

  describe(body: Json): Json {
    const { machine, version } = this.resolve(body.stateMachineArn);
    const described = version ?? machine;
    return {
      stateMachineArn: described.arn,
      name: machine.name,
      status: "ACTIVE",
      definition: described.definition,
      roleArn: described.roleArn,
      type: "STANDARD",
      creationDate: seconds(described.creationDate),
      loggingConfiguration: { level: "OFF", includeExecutionData: false },
      tracingConfiguration: { enabled: false },
      revisionId: described.revisionId,
      ...(version?.description !== undefined ? { description: version.description } : {}),
    };
  }

  listVersions(body: Json): Json {
    const { machine, version } = this.resolve(body.stateMachineArn);
    if (version) throw new ApiError("ValidationException", "List the versions of a state machine by its own ARN");
    const { items, nextToken } = page(machine.versions.toReversed(), body);
    return {
      stateMachineVersions: items.map((v) => ({ stateMachineVersionArn: v.arn, creationDate: seconds(v.creationDate) })),
      ...(nextToken ? { nextToken } : {}),
    };
  }

  list(body: Json): Json {
    const all = [...this.machines.values()].sort((a, b) => a.name.localeCompare(b.name));
    const { items, nextToken } = page(all, body);
    return {
      stateMachines: items.map((m) => ({ stateMachineArn: m.arn, name: m.name, type: "STANDARD", creationDate: seconds(m.creationDate) })),
      ...(nextToken ? { nextToken } : {}),
    };
  }

  /** A version of the current revision: the one it already has (publishing is idempotent), or the next. */
  private publishCurrent(machine: MachineRecord, description: unknown): VersionRecord {
    const latest = machine.versions.at(-1);
    if (latest && latest.revisionId === machine.revisionId) return latest;
    const number = (latest?.version ?? 0) + 1;
    const version: VersionRecord = {
      version: number,
      arn: `${machine.arn}:${number}`,
      definition: machine.definition,
      roleArn: machine.roleArn,
      revisionId: machine.revisionId,
      ...(typeof description === "string" ? { description } : {}),
      creationDate: new Date(),
    };
    machine.versions.push(version);
    return version;
  }

  private checked(name: string, definition: unknown): string {
    if (typeof definition !== "string") throw new ApiError("InvalidDefinition", "Invalid State Machine Definition: the definition is required");
    try {
      JSON.parse(definition);
    } catch {
      throw new ApiError("InvalidDefinition", "Invalid State Machine Definition: the definition is not JSON");
    }
    this.validate(name, definition);
    return definition;
  }

  private add(machine: MachineRecord): MachineRecord {
    this.machines.set(machine.name, machine);
    return machine;
  }

  private load(file: string): void {
    const stored = JSON.parse(readFileSync(file, "utf8")) as Stored;
    for (const { updateDate, ...m } of stored.machines) {
      this.add({
        ...m,
        creationDate: new Date(m.creationDate),
        ...(updateDate ? { updateDate: new Date(updateDate) } : {}),
        versions: m.versions.map((v) => ({ ...v, creationDate: new Date(v.creationDate) })),
        deployed: false,
      });
    }
  }

  private save(): void {
    if (!this.file) return;
    const created = [...this.machines.values()].filter((m) => !m.deployed);
    const stored: Stored = { machines: created.map(({ deployed: _deployed, ...m }) => JSON.parse(JSON.stringify(m)) as Stored["machines"][number]) };
    mkdirSync(dirname(this.file), { recursive: true });
    // Written whole and renamed: a crash mid-write leaves the previous file.
    writeFileSync(`${this.file}.tmp`, JSON.stringify(stored, null, 2));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

export const localRoleArn = (machine: string) => `arn:aws:iam::${LOCAL_ACCOUNT}:role/local-${machine}`;

function role(arn: unknown): string {
  if (typeof arn !== "string" || !/^arn:aws:iam::\d{12}:role\/.+/.test(arn)) throw new ApiError("InvalidArn", `Invalid Arn: '${String(arn)}'`);
  return arn;
}

/** Two definitions are the same document when they parse to the same JSON (whitespace aside). */
function sameDocument(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}
