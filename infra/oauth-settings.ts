/**
 * The connectors' OAuth settings of a deployment (decision 0043, docs/connectors.md): `-c publicUrl` is the base
 * URL browsers reach the API at (a custom domain or the CloudFront URL; the API's own execute-api URL with its
 * stage by default), from which the consent page and the callback are built; `-c oauthReturnUrls` the
 * comma-separated `app_return_url`s the flow may send a user back to (none by default).
 */
import * as cdk from "aws-cdk-lib";
import type { Construct } from "constructs";
import { OAUTH_RETURN_URLS_ENV, oauthReturnUrls, PUBLIC_URL_ENV } from "../shared/config.js";

export interface OAuthSettings {
  publicUrl?: string;
  returnUrls: string[];
}

export function oauthSettings(scope: Construct): OAuthSettings {
  const rawUrl = scope.node.tryGetContext("publicUrl");
  let publicUrl: string | undefined;
  if (rawUrl !== undefined && rawUrl !== "") {
    let url: URL;
    try {
      url = new URL(String(rawUrl));
    } catch {
      throw new Error(`-c publicUrl=${rawUrl}: use an absolute https URL (the API's base URL, with its stage or base path)`);
    }
    if (url.protocol !== "https:") throw new Error(`-c publicUrl=${rawUrl}: browsers must reach the API over https`);
    publicUrl = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  }
  const rawReturn = scope.node.tryGetContext("oauthReturnUrls");
  const returnUrls = oauthReturnUrls(rawReturn === undefined ? "" : String(rawReturn));
  return { publicUrl, returnUrls };
}

/** The environment of the functions that build OAuth URLs: the base URL (the API's own unless configured) and the return list. */
export function oauthEnvironment(settings: OAuthSettings, api: { restApiId: string }, stageName: string): Record<string, string> {
  const publicUrl = settings.publicUrl ?? `https://${api.restApiId}.execute-api.${cdk.Aws.REGION}.${cdk.Aws.URL_SUFFIX}/${stageName}`;
  return { [PUBLIC_URL_ENV]: publicUrl, ...(settings.returnUrls.length ? { [OAUTH_RETURN_URLS_ENV]: settings.returnUrls.join(",") } : {}) };
}
