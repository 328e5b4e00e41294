// React's production build for the emails' HTML (renderToStaticMarkup): the same markup as the development
// build without its checks, a large part of notify's CPU per email (docs/decisions/089-email-cpu.md), as
// the app's server bundle has it. React picks its build from NODE_ENV when it is first loaded, so a
// function imports this module before anything that loads React.
if (!Deno.env.get('NODE_ENV')) Deno.env.set('NODE_ENV', 'production');
