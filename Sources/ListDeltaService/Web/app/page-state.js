// What the page's parts share: the list the list view shows (its id and ListFollower; null on the welcome page and
// on the dashboard), its source and its view definition as last read (null: none), every reset a follower reported,
// and whether following is paused (window.listdelta.pause()).
export const page = { listID: null, follower: null, source: null, view: null, resets: [], paused: false };
