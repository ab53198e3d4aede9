// What the page's parts share: the list the list view shows (its id and ListFollower; null on the welcome page and
// on the dashboard), its source and its view definition as last read (null: none), every reset a follower reported,
// whether following is paused (window.listdelta.pause()), and the live query the list view shows (null: the whole
// list).
export const page = { listID: null, follower: null, source: null, view: null, resets: [], paused: false, query: null };
