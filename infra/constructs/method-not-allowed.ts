import * as apigw from "aws-cdk-lib/aws-apigateway";
import { Construct } from "constructs";
import type { CorsSetting } from "../../shared/http/cors.js";
import { methodNotAllowed } from "../../shared/http/gateway.js";

export interface MethodNotAllowedProps {
  resource: apigw.IResource;
  /** The methods the resource's routes take: the `Allow` header. */
  allowed: string[];
  cors?: CorsSetting;
}

/**
 * 405 with `Allow` for any other method on a resource that has routes (API Gateway REST would say 403
 * "Missing Authentication Token", which the gateway responses make a 404): an `ANY` method with a mock
 * integration and no authorizer, which API Gateway picks only when no route's method matches. Nothing
 * runs, nothing is read; the body is the platform envelope, as the local server sends it.
 */
export class MethodNotAllowed extends Construct {
  readonly method: apigw.Method;

  constructor(scope: Construct, id: string, props: MethodNotAllowedProps) {
    super(scope, id);
    const answer = methodNotAllowed(props.allowed);
    const body = JSON.stringify(answer.body);
    if (/[$#]/.test(body)) throw new Error(`A 405 body needs VTL escaping: ${body}`);
    const headers: Record<string, string> = { "method.response.header.Allow": `'${answer.headers.allow}'`, "method.response.header.x-request-id": "context.requestId" };
    let template = body;
    if (props.cors === "*") headers["method.response.header.Access-Control-Allow-Origin"] = "'*'";
    else if (props.cors?.length) {
      // Only a listed origin is granted, as CDK's own preflight template does it.
      const test = props.cors.map((origin) => `$origin == "${origin}"`).join(" || ");
      template = [`#set($origin = $input.params().header.get("Origin"))`, `#if(${test})`, `#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)`, "#end", body].join("\n");
    }
    this.method = new apigw.Method(this, "Method", {
      resource: props.resource,
      httpMethod: "ANY",
      integration: new apigw.MockIntegration({
        requestTemplates: { "application/json": "{ statusCode: 405 }" },
        integrationResponses: [{ statusCode: "405", responseParameters: headers, responseTemplates: { "application/json": template } }],
      }),
      options: {
        authorizationType: apigw.AuthorizationType.NONE,
        methodResponses: [{ statusCode: "405", responseParameters: Object.fromEntries(Object.keys(headers).map((h) => [h, true])) }],
      },
    });
  }
}
