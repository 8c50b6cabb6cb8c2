// The extension-host entry point for the interop integration suites: the same mocha runner as
// test/integration, reading the *.test.js files beside this bundle (out/test/interop/integration).
export { run } from '../../integration/index';
