SELECT max(list_date) FROM list_revision WHERE system = $system AND scenario = 'official'
