/** The connectors' OAuth settings from CDK context (infra/oauth-settings.ts): validated at synth, turned into the functions' environment. */
import * as cdk from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { oauthEnvironment, oauthSettings } from "../../infra/oauth-settings.js";

const settingsOf = (context: Record<string, unknown>) => oauthSettings(new cdk.App({ context }));

describe("oauthSettings", () => {
  it("takes -c publicUrl (https, no trailing slash) and -c oauthReturnUrls (a list of absolute URLs)", () => {
    expect(settingsOf({ publicUrl: "https://api.example.com/v/", oauthReturnUrls: "https://app.example.com/done, https://app.example.com/flows/" })).toStrictEqual({
      publicUrl: "https://api.example.com/v",
      returnUrls: ["https://app.example.com/done", "https://app.example.com/flows/"],
    });
    expect(settingsOf({})).toStrictEqual({ publicUrl: undefined, returnUrls: [] });
  });

  it.each([
    [{ publicUrl: "http://api.example.com" }, /over https/],
    [{ publicUrl: "api.example.com" }, /absolute https URL/],
    [{ oauthReturnUrls: "app.example.com/done" }, /not an absolute URL/],
    [{ oauthReturnUrls: "javascript:alert(1)" }, /not an http\(s\) URL/],
  ])("refuses %j at synth", (context, message) => {
    expect(() => settingsOf(context)).toThrow(message);
  });
});

describe("oauthEnvironment", () => {
  it("uses the configured URL, else the API's execute-api URL with its stage", () => {
    const stack = new cdk.Stack(new cdk.App(), "S");
    expect(oauthEnvironment({ publicUrl: "https://api.example.com", returnUrls: ["https://app.example.com/done"] }, { restApiId: "abc" }, "prod")).toStrictEqual({
      PUBLIC_URL: "https://api.example.com",
      CONNECTOR_OAUTH_RETURN_URLS: "https://app.example.com/done",
    });
    const fallback = stack.resolve(oauthEnvironment({ returnUrls: [] }, { restApiId: "abc" }, "dev"));
    expect(JSON.stringify(fallback)).toContain("abc.execute-api.");
    expect(JSON.stringify(fallback)).toContain("/dev");
    expect(fallback).not.toHaveProperty("CONNECTOR_OAUTH_RETURN_URLS");
  });
});
