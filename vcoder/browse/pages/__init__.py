"""The sites' page scripts: ``runtime.js`` (router, localStorage state, event delegation) and one script per site."""
