// The rules live in .ci/architecture-rules.cjs (read from each package's ARCHITECTURE.md).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = require("./.ci/architecture-rules.cjs").configFor(__dirname);
