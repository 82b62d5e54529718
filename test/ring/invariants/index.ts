// Every entry of the concurrency ring; a module registers its entries when imported.
import "./agents.js";
import "./batch.js";
import "./conversations.js";
import "./files.js";
import "./libraries.js";
import "./registry.js";
import "./workflows.js";
import "./schedules.js";
