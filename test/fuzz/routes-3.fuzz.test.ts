/** The fuzz ring, share 3 of 4 of the route table (every fourth row in route-key order: test/support/fuzz-suite.ts). */
import { fuzzShare, fuzzSuite } from "../support/fuzz-suite.js";

fuzzSuite("share 3 of 4", fuzzShare(2));
