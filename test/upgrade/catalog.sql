-- Everything the extension owns, one canonical line per object and property:
-- a fresh CREATE EXTENSION and an upgraded one must print the same lines.
\set ON_ERROR_STOP on
\pset tuples_only on
\pset format unaligned
WITH members AS (
	SELECT d.classid, d.objid, d.objsubid FROM pg_depend d
	JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
	WHERE e.extname = 'geoidx' AND d.deptype = 'e')
SELECT line FROM (
	SELECT pg_describe_object(classid, objid, objsubid) AS line FROM members
	UNION ALL
	SELECT 'function ' || pg_get_functiondef(p.oid) || ' comment ' || coalesce(obj_description(p.oid, 'pg_proc'), '')
	FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
	UNION ALL
	SELECT format('operator %s code %s rest %s join %s com %s neg %s comment %s', o.oid::regoperator,
		o.oprcode, o.oprrest, o.oprjoin, o.oprcom::regoperator, o.oprnegate::regoperator,
		coalesce(obj_description(o.oid, 'pg_operator'), ''))
	FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
	UNION ALL
	SELECT format('type %s in %s out %s len %s align %s', t.oid::regtype, t.typinput, t.typoutput,
		t.typlen, t.typalign)
	FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
	UNION ALL
	SELECT format('opclass %s default %s type %s family %s key %s', c.opcname, c.opcdefault,
		c.opcintype::regtype, f.opfname, c.opckeytype::regtype)
	FROM members m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
	JOIN pg_opfamily f ON f.oid = c.opcfamily
	UNION ALL
	SELECT format('amop %s %s %s %s strategy %s purpose %s sort %s', f.opfname, ao.amoplefttype::regtype,
		ao.amoprighttype::regtype, ao.amopopr::regoperator, ao.amopstrategy, ao.amoppurpose,
		ao.amopsortfamily)
	FROM pg_amop ao JOIN pg_opfamily f ON f.oid = ao.amopfamily
	JOIN pg_am a ON a.oid = f.opfmethod WHERE a.amname = 'geoidx'
	UNION ALL
	SELECT format('amproc %s %s %s %s %s', f.opfname, ap.amproclefttype::regtype,
		ap.amprocrighttype::regtype, ap.amprocnum, ap.amproc::regprocedure)
	FROM pg_amproc ap JOIN pg_opfamily f ON f.oid = ap.amprocfamily
	JOIN pg_am a ON a.oid = f.opfmethod WHERE a.amname = 'geoidx'
	UNION ALL
	SELECT format('am %s handler %s comment %s', a.amname, a.amhandler, obj_description(a.oid, 'pg_am'))
	FROM pg_am a WHERE a.amname = 'geoidx'
	UNION ALL
	SELECT format('acl %s %s', p.oid::regprocedure, p.proacl)
	FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
) s ORDER BY line COLLATE "C";
