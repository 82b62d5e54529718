/**
 * OCR in CDK (docs/ocr.md): the POST /v1/ocr row's role (Textract's DetectDocumentText only, never Bedrock; files it
 * reads under workspaces/; usage the only write) and the providers' settings it gets.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { actionsOf, list, methodsOf, refName, routeRoleStatements, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});

const OCR = "POST /v1/ocr";

const roleStatements = (key: string): Json[] => routeRoleStatements(s, key);

const tablesOf = (actions: (a: string) => boolean) =>
  [...new Set(roleStatements(OCR).filter((st) => list<string>(st.Action).some(actions)).flatMap((st) => list<Json>(st.Resource).map(refName)))].toSorted();

describe("the OCR row", () => {
  it("may call exactly Textract's DetectDocumentText (on *, which the action cannot narrow) and never Bedrock", () => {
    const statements = roleStatements(OCR);
    const other = statements.filter((st) => !list<string>(st.Action).some((a) => a.startsWith("dynamodb:") || a.startsWith("s3:") || a.startsWith("logs:")));

    expect(actionsOf(other)).toEqual(["textract:DetectDocumentText"]);
    expect(other[0]!.Resource).toBe("*");
  });

  it("reads objects (file documents) under workspaces/ only, and writes none", () => {
    const objects = roleStatements(OCR).filter((st) => list<string>(st.Action).some((a) => a.startsWith("s3:")));

    expect(actionsOf(objects)).toEqual(["s3:GetObject"]);
    expect(objects[0]!.Resource).toEqual({ "Fn::Join": ["", [{ Ref: "FilesBucketArn" }, "/workspaces/*"]] });
  });

  it("reads the files, models and tenancy tables and writes only usage (and the rate counters)", () => {
    expect(tablesOf((a) => a === "dynamodb:GetItem")).toEqual(["FilesTableArn", "ModelsTableArn", "TenancyTableArn", "UsageTableArn"]);
    expect(tablesOf((a) => a === "dynamodb:PutItem")).toEqual(["UsageTableArn"]);
  });

  it("is a buffered answer that gets the providers' settings, Textract among them", () => {
    const m = methodsOf(s).find((x) => x.key === OCR)!;
    const fn = m.scope.template.Resources[m.functionId].Properties;

    expect(m.method.Properties.Integration.ResponseTransferMode).toBeUndefined();
    expect(JSON.parse(fn.Environment.Variables.INFERENCE_PROVIDERS)).toMatchObject({ textract: { type: "amazon-textract" } });
    expect(fn.MemorySize).toBe(1024);
  });
});
