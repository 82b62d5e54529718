import { route } from "../route.js";
import { usageReport } from "../../shared/services/usage/report.js";
import { UsageReportOut, UsageReportQuery } from "../../shared/schemas/usage.js";

export const handler = route({ query: UsageReportQuery, response: UsageReportOut }, ({ query, caller }) =>
  usageReport(caller, { from: query.from, to: query.to, groupBy: query.group_by }),
);
