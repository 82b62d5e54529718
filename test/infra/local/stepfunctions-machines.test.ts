import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  InvalidDefinition,
  ListExecutionsCommand,
  ListStateMachineVersionsCommand,
  PublishStateMachineVersionCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StateMachineAlreadyExists,
  StateMachineDoesNotExist,
  UpdateStateMachineCommand,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalStepFunctions } from "../../../infra/local/stepfunctions.js";
import { dispatchedTo } from "../../support/step-tasks/dispatch.js";
import { aMachine, callbackTask, eventually, oneTask, ROLE_ARN, settled, standIn } from "./stand-in.js";

const started: LocalStepFunctions[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

/** A program whose one state says which version ran it. */
const passing = (version: string) => ({ StartAt: "Mark", States: { Mark: { Type: "Pass", Result: version, ResultPath: "$.ran", End: true } } });

describe("state machines created at run time", () => {
  let sfn: SFNClient;
  beforeAll(async () => {
    ({ sfn } = await standIn(started));
  });

  it("creates a machine and publishes version 1 with publish: true; the same call again answers with both", async () => {
    const create = new CreateStateMachineCommand({ name: "wf-publish", definition: JSON.stringify(passing("v1")), roleArn: ROLE_ARN, publish: true, versionDescription: "hash-1" });
    const first = await sfn.send(create);
    expect(first.stateMachineArn).toBe("arn:aws:states:us-east-1:000000000000:stateMachine:wf-publish");
    expect(first.stateMachineVersionArn).toBe(`${first.stateMachineArn}:1`);
    const again = await sfn.send(create);
    expect(again).toMatchObject({ stateMachineArn: first.stateMachineArn, stateMachineVersionArn: first.stateMachineVersionArn, creationDate: first.creationDate });
    await expect(sfn.send(new CreateStateMachineCommand({ name: "wf-publish", definition: JSON.stringify(passing("other")), roleArn: ROLE_ARN }))).rejects.toBeInstanceOf(
      StateMachineAlreadyExists,
    );
    expect(await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: first.stateMachineVersionArn }))).toMatchObject({
      stateMachineArn: first.stateMachineVersionArn,
      name: "wf-publish",
      status: "ACTIVE",
      type: "STANDARD",
      roleArn: ROLE_ARN,
      description: "hash-1",
      definition: JSON.stringify(passing("v1")),
    });
  });

  it("publishes a new version per update; each version runs its own document, the machine its latest", async () => {
    const { arn, versionArn } = await aMachine(sfn, passing("v1"), true);
    const update = await sfn.send(new UpdateStateMachineCommand({ stateMachineArn: arn, definition: JSON.stringify(passing("v2")), publish: true, versionDescription: "hash-2" }));
    expect(update.stateMachineVersionArn).toBe(`${arn}:2`);
    // Publishing the same revision again is a no-op.
    expect((await sfn.send(new PublishStateMachineVersionCommand({ stateMachineArn: arn }))).stateMachineVersionArn).toBe(`${arn}:2`);
    const versions = await sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: arn }));
    expect(versions.stateMachineVersions!.map((v) => v.stateMachineVersionArn)).toEqual([`${arn}:2`, versionArn]);

    const ranBy = async (stateMachineArn: string, name: string) => {
      const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: "{}" }));
      expect(executionArn).toBe(`arn:aws:states:us-east-1:000000000000:execution:${arn.split(":").at(-1)}:${name}`);
      return settled(sfn, executionArn!);
    };
    const onV1 = await ranBy(versionArn!, "on-v1");
    expect(JSON.parse(onV1.output!).ran).toBe("v1");
    expect(onV1).toMatchObject({ stateMachineArn: arn, stateMachineVersionArn: versionArn });
    expect(JSON.parse((await ranBy(arn, "on-latest")).output!).ran).toBe("v2");

    const onVersion1 = await sfn.send(new ListExecutionsCommand({ stateMachineArn: versionArn }));
    expect(onVersion1.executions!.map((e) => e.name)).toEqual(["on-v1"]);
    const all = await sfn.send(new ListExecutionsCommand({ stateMachineArn: arn }));
    expect(all.executions!.map((e) => e.name)).toEqual(["on-latest", "on-v1"]);
  });

  it("refuses a version or machine it does not have", async () => {
    const { arn } = await aMachine(sfn, passing("v1"), true);
    await expect(sfn.send(new StartExecutionCommand({ stateMachineArn: `${arn}:7` }))).rejects.toBeInstanceOf(StateMachineDoesNotExist);
    await expect(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `${arn}-gone` }))).rejects.toBeInstanceOf(StateMachineDoesNotExist);
  });

  it("refuses definitions it cannot run: invalid ASL, a Task on anything but a local function with a token", async () => {
    const refused = (definition: object) =>
      sfn.send(new CreateStateMachineCommand({ name: `wf-refused-${Math.random().toString(36).slice(2)}`, definition: JSON.stringify(definition), roleArn: ROLE_ARN }));
    await expect(refused({ StartAt: "Missing", States: { Only: { Type: "Pass", End: true } } })).rejects.toBeInstanceOf(InvalidDefinition);
    await expect(refused(oneTask({ Resource: "arn:aws:lambda:us-east-1:000000000000:function:test-dispatch" }))).rejects.toThrow(/lambda:invoke.waitForTaskToken/);
    const elsewhere = callbackTask("Work", { End: true });
    elsewhere.Parameters.FunctionName = "arn:aws:lambda:us-east-1:123456789012:function:elsewhere";
    await expect(refused({ StartAt: "Work", States: { Work: elsewhere } })).rejects.toThrow(/no local function/);
    await expect(refused({ StartAt: "Work", States: { Work: { ...callbackTask("Work", { End: true }), HeartbeatSecondsPath: "$.beat" } } })).rejects.toThrow(/HeartbeatSecondsPath/);
  });

  it("answers StartExecution with the same name and input on the same version with the running execution", async () => {
    const { versionArn } = await aMachine(sfn, oneTask(), true);
    const first = await sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name: "run-1", input: "{}" }));
    const again = await sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name: "run-1", input: "{}" }));
    expect(again.executionArn).toBe(first.executionArn);
    const { token } = await eventually(() => dispatchedTo(first.executionArn!, "Work")[0], "the dispatch");
    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: "{}" }));
    expect((await settled(sfn, first.executionArn!)).status).toBe("SUCCEEDED");
  });
});

describe("machines kept in stateDir", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "sfn-state-"));
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it("exist again with their versions after the stand-in restarts; executions do not", async () => {
    const before = await standIn(started, { stateDir });
    const { arn, versionArn } = await aMachine(before.sfn, oneTask(), true);
    await before.sfn.send(new UpdateStateMachineCommand({ stateMachineArn: arn, definition: JSON.stringify(passing("v2")), publish: true }));
    const { executionArn } = await before.sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name: "before-restart" }));
    await before.running.stop();

    const after = await standIn(started, { stateDir });
    expect(await after.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: versionArn }))).toMatchObject({ definition: JSON.stringify(oneTask()) });
    const versions = await after.sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: arn }));
    expect(versions.stateMachineVersions!.map((v) => v.stateMachineVersionArn)).toEqual([`${arn}:2`, versionArn]);
    await expect(after.sfn.send(new DescribeExecutionCommand({ executionArn }))).rejects.toMatchObject({ name: "ExecutionDoesNotExist" });
    // The same name again starts a new execution on the kept version (how the workflow engine resumes its runs).
    const resumed = await after.sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name: "before-restart", input: "{}" }));
    expect(resumed.executionArn).toBe(executionArn);
    const { token } = await eventually(() => dispatchedTo(executionArn!, "Work")[1], "the dispatch after the restart");
    await after.sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: "{}" }));
    expect((await settled(after.sfn, executionArn!)).status).toBe("SUCCEEDED");
  });
});
