import { openApiDocument } from "./infra/openapi/document.js";
import { compareWithMistral, differenceLine } from "./infra/openapi/compare.js";
import { mistralReference } from "./infra/openapi/reference.js";
const doc = await openApiDocument();
const c = compareWithMistral(doc, mistralReference());
console.log("served", c.served.length, "not served", c.notServed.length);
for (const d of c.differences) console.log(differenceLine(d));
