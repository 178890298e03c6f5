// Helpers evaluated in Chrome DevTools' own frontend (devtools://devtools/bundled/…): they
// drive its Memory panel the way a person does (load a file, read the Summary, select an object
// and read its Retainers, switch to Comparison) and read back what its data grids show.
// Installed as globalThis.__retainGraph by devtools_check.py.
(() => {
  const deadline = 120000;  // ms: generous; every wait polls a condition, none sleeps blindly
  async function waitFor(what, condition) {
    const end = Date.now() + deadline;
    for (;;) {
      const value = await condition();
      if (value) return value;
      if (Date.now() > end) throw new Error('DevTools: timed out waiting for ' + what);
      await new Promise(resolve => setTimeout(resolve, 50));
    }
  }
  const state = {panel: null, chunks: [], views: []};
  async function panel() {
    if (state.panel) return state.panel;
    const UI = await import('./ui/legacy/legacy.js');
    await UI.ViewManager.ViewManager.instance().showView('heap-profiler');
    const Profiler = await import('./panels/profiler/profiler.js');
    state.panel = Profiler.HeapProfilerPanel.HeapProfilerPanel.instance();
    return state.panel;
  }
  function instance(node) {
    return {id: node.snapshotNodeId, name: node.nameInternal, distance: node.distance,
            shallowSize: node.shallowSize, retainedSize: node.retainedSize};
  }
  // Switches a snapshot's view to a perspective ("Summary", "Comparison") as its drop-down
  // does, without waiting for an event that an already-filled grid does not send again.
  function perspective(v, title) {
    const index = v.perspectives.findIndex(p => p.title() === title);
    if (index < 0) throw new Error('DevTools: no perspective ' + title);
    if (v.currentPerspectiveIndex !== index) {
      const option = v.perspectiveSelect.options().find(o => o.value === String(index));
      if (option) v.perspectiveSelect.select(option);
      v.changePerspective(index);
    }
  }
  // Every top-level row of a data grid. The Summary and Comparison grids are viewport grids:
  // their root's `children` are only the rows scrolled into view (a few dozen in a headless
  // window), so a heap with many types would hide rows; `topLevelNodes()` gives them all.
  function rows(grid) {
    if (typeof grid.topLevelNodes !== 'function') {
      throw new Error('DevTools: this frontend has no topLevelNodes() on its data grids');
    }
    return grid.topLevelNodes();
  }
  async function view(index) {
    const v = state.views[index];
    (await panel()).showProfile(v.profile);
    return v;
  }
  window.__retainGraph = {
    // Whether the frontend finished starting (its locale data and views are registered only
    // after the page loads): true once the Memory panel can be shown.
    async ready() {
      try {
        await panel();
        return true;
      } catch (error) {
        state.panel = null;
        return false;
      }
    },
    startFile() { state.chunks = []; return true; },
    addChunk(text) { state.chunks.push(text); return state.chunks.length; },
    // What the Load button does once a file is chosen: ProfilesPanel.loadFromFile(file).
    async loadFile(name) {
      const p = await panel();
      const started = performance.now();
      const file = new File(state.chunks, name);
      state.chunks = [];
      await p.loadFromFile(file);
      const profiles = p.selectedProfileType.getProfiles();
      const profile = profiles[profiles.length - 1];
      await profile.loadPromise;
      const v = p.showProfile(profile);
      const grid = v.constructorsDataGrid;
      await waitFor('the Summary of ' + name, () => grid.rootNode().children.length > 0);
      state.views.push(v);
      return {index: state.views.length - 1, title: profile.title,
              seconds: (performance.now() - started) / 1000};
    },
    async summary(index) {
      const v = await view(index);
      perspective(v, 'Summary');
      const grid = v.constructorsDataGrid;
      await waitFor('the Summary', () => rows(grid).length > 0);
      return rows(grid).map(n => ({
        name: n.nameInternal, count: n.count, distance: n.distance,
        shallowSize: n.shallowSize, retainedSize: n.retainedSize}));
    },
    // Selects object `id` in the Summary (as "Reveal in Summary view" does) and reads its row
    // and its Retainers, following the first retainer of each level as DevTools expands them.
    async inspect(index, id, depth) {
      const v = await view(index);
      perspective(v, 'Summary');
      await waitFor('the Summary', () => v.constructorsDataGrid.rootNode().children.length > 0);
      await v.selectLiveObject('Summary', String(id));
      const grid = v.constructorsDataGrid;
      const selected = await waitFor('object @' + id + ' selected',
          () => grid.selectedNode && grid.selectedNode.snapshotNodeId === id && grid.selectedNode);
      const retainers = v.retainmentDataGrid;
      await waitFor('the Retainers of @' + id, () => retainers.rootNode().children.length > 0);
      const path = [];
      let level = retainers.rootNode();
      for (let step = 0; step < depth; step++) {
        const current = level;
        if (current !== retainers.rootNode()) {
          // A retainer that closes a cycle is never expanded. Whether a node has retainers
          // is learnt asynchronously (the grid node asks the snapshot's worker when it is
          // made): wait for that answer, or a node asked too soon reads as having none.
          if (current.cycledWithAncestorGridNode) break;
          await current.updateHasChildren();
          if (!current.hasChildren()) break;
          if (!current.expanded) current.expand();
        }
        const children = await waitFor('retainers level ' + step,
            () => current.children.length > 0 && current.children);
        const first = children[0];
        path.push(Object.assign(instance(first), {edge: first.referenceName, edgeType: first.referenceType}));
        level = first;
      }
      const all = retainers.rootNode().children.map(r => Object.assign(instance(r), {edge: r.referenceName}));
      return {object: instance(selected), retainers: all, path};
    },
    async comparison(index, base) {
      const v = await view(index);
      perspective(v, 'Comparison');
      const baseProfile = state.views[base].profile;
      const position = v.profiles().indexOf(baseProfile);
      if (position < 0) throw new Error('base snapshot not offered by the Comparison view');
      await waitFor('the base snapshot menu', () => v.baseSelect.size() > position);
      v.baseSelect.setSelectedIndex(position);
      v.changeBase();
      const grid = v.diffDataGrid;
      const baseProxy = await baseProfile.loadPromise;
      await waitFor('the Comparison base', () => grid.baseSnapshot === baseProxy);
      // How many classes differ, as DevTools' worker computes it: the grid shows that many rows
      // once filled (possibly none, when nothing changed).
      const snapshot = await v.profile.loadPromise;
      const definitions = await snapshot.interfaceDefinitions();
      const diff = await snapshot.calculateSnapshotDiff(
          baseProxy.uid, await baseProxy.aggregatesForDiff(definitions));
      const expected = Object.keys(diff).length;
      await waitFor('the Comparison rows', () => rows(grid).length === expected);
      return rows(grid).map(n => ({
        name: n.nameInternal, addedCount: n.addedCount, removedCount: n.removedCount,
        countDelta: n.countDelta, addedSize: n.addedSize, removedSize: n.removedSize,
        sizeDelta: n.sizeDelta}));
    },
  };
  return true;
})()
