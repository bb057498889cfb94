#!/usr/bin/env node
// kubectl plugin entry: `kubectl casdoctor why-pending ...` runs casdoctor with the current kubeconfig context.
process.env.CASDOCTOR_AS_KUBECTL_PLUGIN = '1';
const { start } = await import('./start.js');
await start();
